/* The provenance of the committed records (docs/reference.md, "Results and their provenance").
 * A record is what run.sh, tools/scaling.sh, tools/sweep.sh, tools/profile.sh or tools/sanitize.sh
 * leaves under results/reference/<gpu>/: a campaign's runs.csv.gz (the GPU's, its scaling/,
 * pt-scaling/ and multi-gpu/), a sweep's sweeps/NAME.csv, a profile's profiles/STAGE.profile.txt, a
 * sanitizer.txt. Each now writes its provenance file (tools/runner/provenance.sh): provenance.tsv
 * beside a campaign's runs, NAME.provenance.tsv beside any other record (sweeps/NAME.csv,
 * profiles/NAME.profile.txt, sanitizer.txt: sanitizer.provenance.tsv), a row per stage: its source
 * hash (tools/stages source-hash), its executable's sha256, the shared host code's hash
 * (tools/stages runtime-hash), the revision, the date.
 *
 * For every committed record with a provenance file, each stage's source hash and the shared host
 * code's are recomputed (a few seconds, nothing built) and compared: the test fails with one line
 * per stage whose source changed since the record ("stage X: source changed since RECORD (recorded
 * H1, now H2): ..."), and one per record whose shared host code changed, unless the change is
 * listed in tests/provenance-changed.tsv (RECORD, STAGE or "runtime", the hash now, why: a change
 * judged not to touch the record; the line holds only while the source stays at that hash). The
 * records made before provenance was recorded have none: each is listed in
 * tests/provenance-unknown.tsv, and the test fails on a record without provenance that is not
 * listed, on a listed one that has gained provenance (take it off: the list only shrinks), on a
 * line naming no record, on a provenance file of no record, and on a line of the changed list
 * that accepts nothing. Then the check is shown to fail where it should, on made-up stages and a
 * made-up results tree written by tools/runner/provenance.sh; and the writer and the hash are
 * tested on their own. No GPU needed. Run from the repository root. */
#include <ctype.h>

#include "test_support.h"

#define REFERENCE "results/reference"
#define UNKNOWN_LIST "tests/provenance-unknown.tsv"
#define CHANGED_LIST "tests/provenance-changed.tsv"
#define PROVENANCE_HEADER "stage\tsource_hash\tbinary_sha256\truntime_hash\trevision\tdate"
#define MAX_STAGES 256
#define MAX_RECORDS 1024
#define MAX_LISTED 1024
#define NAME_CHARS 512
#define SHORT_HASH 12 /* the hashes' first characters in a message, and the least a list may give */

/* ---- What the check reads ------------------------------------------------------------------- */

struct stage_hash {
    char stage[128], hash[80];
};
struct hashes {
    int count;
    struct stage_hash stage[MAX_STAGES];
    char runtime[80];
};
struct unknown_entry { /* a line of the unknown list: a record without provenance */
    char record[NAME_CHARS];
    int seen;
};
struct changed_entry { /* a line of the changed list: RECORD, STAGE or runtime, the hash now */
    char record[NAME_CHARS], stage[128], hash[80];
    int used;
};
/* Every stage's source hash now and the shared host code's (tools/stages, with STAGES_DIR when
 * stages_dir is not NULL). */
static void current_hashes(const char *stages_dir, struct hashes *hashes)
{
    char prefix[512] = "";
    if (stages_dir)
        snprintf(prefix, sizeof prefix, "STAGES_DIR='%s' ", stages_dir);
    memset(hashes, 0, sizeof *hashes);
    struct command_result *r = run_shell("%stools/stages source-hash", prefix);
    if (r->exit_code != 0)
        fail_msg("tools/stages source-hash: %s", r->err);
    char *cursor = r->out;
    for (char *line; (line = next_line(&cursor));) {
        if (!*line)
            continue;
        assert_true(hashes->count < MAX_STAGES);
        struct stage_hash *h = &hashes->stage[hashes->count++];
        if (sscanf(line, "%127[^\t]\t%79s", h->stage, h->hash) != 2 || strlen(h->hash) != 64)
            fail_msg("tools/stages source-hash printed '%s', not STAGE<TAB>SHA256", line);
    }
    assert_true(hashes->count > 0);
    r = run_shell("%stools/stages runtime-hash", prefix);
    if (r->exit_code != 0 || sscanf(r->out, "%79s", hashes->runtime) != 1 || strlen(hashes->runtime) != 64)
        fail_msg("tools/stages runtime-hash: status %d: %s%s", r->exit_code, r->out, r->err);
}

static const char *hash_of(const struct hashes *hashes, const char *stage)
{
    for (int k = 0; k < hashes->count; k++)
        if (strcmp(hashes->stage[k].stage, stage) == 0)
            return hashes->stage[k].hash;
    return NULL;
}

/* The first SHORT_HASH characters of a hash, for a message (a recorded "unknown (why)" whole). */
static const char *short_hash(const char *hash, char *out, size_t size)
{
    int hex = 1;
    for (const char *c = hash; *c; c++)
        hex &= isxdigit((unsigned char)*c) != 0;
    snprintf(out, size, "%.*s", hex ? SHORT_HASH : (int)(size - 1), hash);
    return out;
}

/* The lines of a list file (# comments and empty lines left out) into lines, at most max; the
 * number read, 0 when there is no such file. */
static int read_list(const char *path, char (*lines)[1024], int max)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    char line[1024];
    int count = 0;
    while (count < max && fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        snprintf(lines[count++], 1024, "%s", line);
    }
    fclose(file);
    return count;
}

/* The provenance file of a record (both relative to the results root): provenance.tsv beside a
 * campaign's runs.csv.gz, else the record's name less .profile.txt, .csv or .txt, and
 * .provenance.tsv. */
static void provenance_path(const char *record, char *out, size_t size)
{
    const char *slash = strrchr(record, '/');
    const char *name = slash ? slash + 1 : record;
    if (strcmp(name, "runs.csv.gz") == 0) {
        snprintf(out, size, "%.*sprovenance.tsv", (int)(name - record), record);
        return;
    }
    static const char *const endings[] = {".profile.txt", ".csv", ".txt"};
    size_t length = strlen(record);
    for (size_t k = 0; k < sizeof endings / sizeof *endings; k++) {
        size_t n = strlen(endings[k]);
        if (length > n && strcmp(record + length - n, endings[k]) == 0) {
            snprintf(out, size, "%.*s.provenance.tsv", (int)(length - n), record);
            return;
        }
    }
    snprintf(out, size, "%s.provenance.tsv", record);
}

/* What to do about a changed record, by its kind. */
static const char *remedy(const char *record)
{
    if (strstr(record, "runs.csv.gz"))
        return "re-run its campaign";
    if (strstr(record, "/sweeps/"))
        return "re-run its sweep (tools/sweep.sh)";
    if (strstr(record, "/profiles/"))
        return "re-run its profile (tools/profile.sh)";
    return "re-run tools/sanitize.sh";
}

/* ---- The check ------------------------------------------------------------------------------ */

static struct unknown_entry unknown[MAX_LISTED];
static struct changed_entry changed[MAX_LISTED];
static int unknown_count, changed_count;

/* The change (record, stage or "runtime") listed as known, with the hash it has now (the list may
 * give the hash's first SHORT_HASH characters or more): its entry, marked used, or NULL. */
static struct changed_entry *accepted(const char *record, const char *stage, const char *now)
{
    for (int k = 0; k < changed_count; k++) {
        struct changed_entry *e = &changed[k];
        if (strcmp(e->record, record) == 0 && strcmp(e->stage, stage) == 0 && strlen(e->hash) >= SHORT_HASH &&
            strncmp(e->hash, now, strlen(e->hash)) == 0) {
            e->used = 1;
            return e;
        }
    }
    return NULL;
}

/* Checks one provenance file (path, of record) against the hashes now. */
static void check_provenance_file(const char *record, const char *path, const struct hashes *now,
                                  const char *changed_list, struct problems *problems)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        add_problem(problems, "%s: cannot be read", path);
        return;
    }
    static char line[8192];
    static char flagged[MAX_STAGES][128];
    int flagged_count = 0, number = 0, rows = 0, runtime_flagged = 0, header = 0;
    while (fgets(line, sizeof line, file)) {
        number++;
        line[strcspn(line, "\r\n")] = '\0';
        if (number == 1) {
            header = strcmp(line, PROVENANCE_HEADER) == 0;
            if (!header) {
                add_problem(problems, "%s: its first line is not the header '%s' (tools/runner/provenance.sh)", path,
                            PROVENANCE_HEADER);
                break;
            }
            continue;
        }
        char *field[6], *save = NULL;
        int fields = 0;
        for (char *f = strtok_r(line, "\t", &save); f && fields < 6; f = strtok_r(NULL, "\t", &save))
            field[fields++] = f;
        if (fields != 6 || strtok_r(NULL, "\t", &save)) {
            add_problem(problems, "%s:%d: not a row of 6 tab-separated fields (tools/runner/provenance.sh)", path,
                        number);
            continue;
        }
        rows++;
        const char *stage = field[0], *recorded = field[1], *runtime = field[3];
        const char *current = hash_of(now, stage);
        char a[80], b[80];
        /* One line per stage (a campaign continued with --resume has a row per session). */
        int already = 0;
        for (int k = 0; k < flagged_count; k++)
            already |= strcmp(flagged[k], stage) == 0;
        if (!already && (!current || strcmp(recorded, current) != 0) &&
            !accepted(record, stage, current ? current : "none")) {
            if (!current)
                add_problem(problems,
                            "stage %s: no stage folder has that name any more (renamed or removed since %s): %s "
                            "or list it in %s (hash: none)",
                            stage, record, remedy(record), changed_list);
            else
                add_problem(problems, "stage %s: source changed since %s (recorded %s, now %s): %s or list it in %s",
                            stage, record, short_hash(recorded, a, sizeof a), short_hash(current, b, sizeof b),
                            remedy(record), changed_list);
            if (flagged_count < MAX_STAGES)
                snprintf(flagged[flagged_count++], sizeof flagged[0], "%s", stage);
        }
        if (!runtime_flagged && strcmp(runtime, now->runtime) != 0 && !accepted(record, "runtime", now->runtime)) {
            add_problem(problems,
                        "the shared host code (common/: tools/stages runtime-hash) changed since %s (recorded %s, "
                        "now %s): %s or list it in %s (stage: runtime)",
                        record, short_hash(runtime, a, sizeof a), short_hash(now->runtime, b, sizeof b),
                        remedy(record), changed_list);
            runtime_flagged = 1;
        }
    }
    fclose(file);
    if (number == 0)
        add_problem(problems, "%s: empty: no header, no rows (tools/runner/provenance.sh)", path);
    else if (header && rows == 0)
        add_problem(problems, "%s: no rows: a record names the stages it ran", path);
}

/* Every problem with the provenance of the records under root (the folder of GPU folders), the
 * stages of stages_dir (NULL: the repository's), the lists of records without provenance and of
 * changes known; returns how many. */
static int provenance_problems(const char *root, const char *stages_dir, const char *unknown_list,
                               const char *changed_list, struct problems *problems)
{
    static struct hashes now;
    static char lines[MAX_LISTED][1024];
    memset(problems, 0, sizeof *problems);
    current_hashes(stages_dir, &now);

    unknown_count = read_list(unknown_list, lines, MAX_LISTED);
    for (int k = 0; k < unknown_count; k++) {
        snprintf(unknown[k].record, sizeof unknown[k].record, "%.*s", (int)strcspn(lines[k], "\t"), lines[k]);
        unknown[k].seen = 0;
    }
    int count = read_list(changed_list, lines, MAX_LISTED);
    changed_count = 0;
    for (int k = 0; k < count; k++) {
        struct changed_entry *e = &changed[changed_count];
        if (sscanf(lines[k], "%511[^\t]\t%127[^\t]\t%79[^\t]", e->record, e->stage, e->hash) != 3 ||
            strlen(e->hash) < SHORT_HASH) {
            add_problem(problems, "%s: not RECORD<TAB>STAGE (or runtime)<TAB>HASH NOW<TAB>why: %s", changed_list,
                        lines[k]);
            continue;
        }
        e->used = 0;
        changed_count++;
    }

    /* The records, relative to root. */
    struct command_result *r = run_shell(
        "cd '%s' && for f in */runs.csv.gz */scaling/runs.csv.gz */pt-scaling/runs.csv.gz */multi-gpu*/runs.csv.gz */sweeps/*.csv "
        "*/profiles/*.profile.txt */sanitizer.txt; do if [ -f \"$f\" ]; then echo \"$f\"; fi; done",
        root);
    assert_int_equal(r->exit_code, 0);
    static char records[TEST_OUTPUT_BYTES];
    snprintf(records, sizeof records, "%s", r->out);
    static char provenance_of[MAX_RECORDS][NAME_CHARS];
    int record_count = 0;
    char *cursor = records;
    for (char *relative; (relative = next_line(&cursor));) {
        if (!*relative)
            continue;
        assert_true(record_count < MAX_RECORDS);
        char record[NAME_CHARS], path[NAME_CHARS + 256], provenance[NAME_CHARS];
        snprintf(record, sizeof record, "%.200s/%.300s", root, relative);
        provenance_path(relative, provenance, sizeof provenance);
        snprintf(provenance_of[record_count++], NAME_CHARS, "%s", provenance);
        snprintf(path, sizeof path, "%.200s/%s", root, provenance);
        struct unknown_entry *listed = NULL;
        for (int k = 0; k < unknown_count; k++)
            if (strcmp(unknown[k].record, record) == 0)
                listed = &unknown[k];
        if (listed)
            listed->seen = 1;
        if (access(path, F_OK) != 0) {
            if (!listed)
                add_problem(problems,
                            "%s: no provenance file (%s) and not listed in %s: %s (it writes one) or list it there",
                            record, path, unknown_list, remedy(record));
            continue;
        }
        if (listed)
            add_problem(problems, "%s: has its provenance file now: take it off %s", record, unknown_list);
        check_provenance_file(record, path, &now, changed_list, problems);
    }

    /* Every provenance file is a record's. */
    r = run_shell("cd '%s' && find . \\( -name provenance.tsv -o -name '*.provenance.tsv' \\) | sed 's#^\\./##' | sort",
                  root);
    assert_int_equal(r->exit_code, 0);
    cursor = r->out;
    for (char *file; (file = next_line(&cursor));) {
        int found = !*file;
        for (int k = 0; k < record_count && !found; k++)
            found = strcmp(provenance_of[k], file) == 0;
        if (!found)
            add_problem(problems, "%s/%s: a provenance file of no record (its record gone, or renamed?)", root, file);
    }

    for (int k = 0; k < unknown_count; k++)
        if (!unknown[k].seen)
            add_problem(problems, "%s: listed in %s, but there is no such record", unknown[k].record, unknown_list);
    for (int k = 0; k < changed_count; k++)
        if (!changed[k].used)
            add_problem(problems,
                        "%s, %s: listed in %s with the hash %.12s, but no change of its is accepted by it (none "
                        "since the record, or the source is at another hash now): remove or update the line",
                        changed[k].record, changed[k].stage, changed_list, changed[k].hash);
    return problems->count;
}

/* ---- The committed records ------------------------------------------------------------------ */

static void test_the_committed_records(void **state)
{
    (void)state;
    static struct problems problems;
    struct command_result *r = run_shell("date +%%s%%N");
    long long start = atoll(r->out);
    if (provenance_problems(REFERENCE, NULL, UNKNOWN_LIST, CHANGED_LIST, &problems)) {
        print_problems(NULL, &problems);
        fail_msg("%d problem(s) with the provenance of the records in %s (above)", problems.count, REFERENCE);
    }
    r = run_shell("date +%%s%%N");
    print_message("# every stage hashed and every record's provenance checked in %.1f s\n",
                  (double)(atoll(r->out) - start) / 1e9);
}

/* ---- The check, on made-up stages and records ----------------------------------------------- */

/* The problems of the made-up tree must include a line holding want (and and_want, when given). */
static void assert_problem(const struct problems *problems, const char *case_name, const char *want,
                           const char *and_want)
{
    for (const char *line = problems->text; *line;) {
        size_t n = strcspn(line, "\n");
        char one[2048];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), line);
        if (strstr(one, want) && (!and_want || strstr(one, and_want)))
            return;
        line += n + (line[n] == '\n');
    }
    print_problems(NULL, problems);
    fail_msg("%s: expected a problem naming '%s'%s%s; got those above", case_name, want, and_want ? " and " : "",
             and_want ? and_want : "");
}

static int problems_naming(const struct problems *problems, const char *want)
{
    int count = 0;
    for (const char *at = problems->text; (at = strstr(at, want)); at += strlen(want))
        count++;
    return count;
}

static void test_the_check_fails_when_it_should(void **state)
{
    (void)state;
    static char folder[64], stages[128], root[128], bin[128], unknown_list[160], changed_list[160], here[4096];
    assert_non_null(getcwd(here, sizeof here));
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    snprintf(stages, sizeof stages, "%s/stages", folder);
    snprintf(root, sizeof root, "%s/results/reference", folder);
    snprintf(bin, sizeof bin, "%s/bin", folder);
    snprintf(unknown_list, sizeof unknown_list, "%s/unknown.tsv", folder);
    snprintf(changed_list, sizeof changed_list, "%s/changed.tsv", folder);
    static struct problems problems;

    /* Three made-up stages with a render.cu each; 02-next includes a part of its own. */
    make_fake_stage(stages, "01-base", "none", NULL, NULL, 1);
    make_fake_stage(stages, "02-next", "01-base", NULL, "options: --frames", 1);
    make_fake_stage(stages, "p01-base", "none", NULL, NULL, 1);
    assert_int_equal(sh("cd '%s' && printf '#include \"walk.cuh\"\\n' >>02-next/render.cu && echo '// walk' "
                        ">02-next/walk.cuh && mkdir -p '%s' && for s in 01-base 02-next p01-base; do "
                        "echo \"$s\" >'%s/'$s; done",
                        stages, bin, bin),
                     0);
    /* The records: a campaign (its provenance from two sessions), a sweep, a sanitizer report,
     * each written by tools/runner/provenance.sh; a profile made before provenance, listed. */
    const char *gpu = "fake-gpu";
    assert_int_equal(
        sh("mkdir -p '%s' && cd '%s' && mkdir -p %s/sweeps %s/profiles && echo order | gzip >%s/runs.csv.gz && "
           "echo order >%s/sweeps/02-next--frames.csv && echo report >%s/sanitizer.txt && "
           "echo profile >%s/profiles/01-base.profile.txt && "
           "P='%s/tools/runner/provenance.sh' && export STAGES_DIR='%s' && "
           "\"$P\" append %s/provenance.tsv '%s' 01-base 02-next && \"$P\" append %s/provenance.tsv '%s' 02-next && "
           "\"$P\" write %s/sweeps/02-next--frames.provenance.tsv '%s' 02-next && "
           "\"$P\" write %s/sanitizer.provenance.tsv '%s' 01-base 02-next p01-base",
           root, root, gpu, gpu, gpu, gpu, gpu, gpu, here, stages, gpu, bin, gpu, bin, gpu, bin, gpu, bin),
        0);
    char profile[256];
    snprintf(profile, sizeof profile, "%s/%s/profiles/01-base.profile.txt", root, gpu);
    assert_int_equal(sh("printf '# made-up records without provenance\\n%s\\tbefore provenance\\n' >'%s' && "
                        "printf '# none\\n' >'%s'",
                        profile, unknown_list, changed_list),
                     0);

    /* As made: nothing to report. */
    if (provenance_problems(root, stages, unknown_list, changed_list, &problems)) {
        print_problems(NULL, &problems);
        fail_msg("the made-up records, as tools/runner/provenance.sh wrote them, were refused (above)");
    }

    /* A record whose hash differs (a row edited): that stage of that record, one line. */
    char campaign[256], sweep[256], sanitizer[256], line[512];
    snprintf(campaign, sizeof campaign, "%s/%s/runs.csv.gz", root, gpu);
    snprintf(sweep, sizeof sweep, "%s/%s/sweeps/02-next--frames.csv", root, gpu);
    snprintf(sanitizer, sizeof sanitizer, "%s/%s/sanitizer.txt", root, gpu);
    assert_int_equal(sh("cd '%s/%s' && cp sanitizer.provenance.tsv saved && "
                        "awk -F'\\t' -v OFS='\\t' '$1 == \"p01-base\" { $2 = \"0123456789abcdef\" } 1' saved "
                        ">sanitizer.provenance.tsv",
                        root, gpu),
                     0);
    assert_int_equal(provenance_problems(root, stages, unknown_list, changed_list, &problems), 1);
    snprintf(line, sizeof line, "stage p01-base: source changed since %s (recorded 0123456789ab, now ", sanitizer);
    assert_problem(&problems, "a recorded hash edited", line, "re-run tools/sanitize.sh or list it in");
    assert_int_equal(sh("cd '%s/%s' && mv saved sanitizer.provenance.tsv", root, gpu), 0);

    /* A stage's part changed: one line per record that ran it (the campaign once, though two
     * sessions recorded it), none for the stages unchanged. */
    assert_int_equal(sh("echo '// faster' >>'%s/02-next/walk.cuh'", stages), 0);
    assert_int_equal(provenance_problems(root, stages, unknown_list, changed_list, &problems), 3);
    snprintf(line, sizeof line, "stage 02-next: source changed since %s (recorded ", campaign);
    assert_problem(&problems, "a part changed", line, "re-run its campaign or list it in");
    snprintf(line, sizeof line, "stage 02-next: source changed since %s (recorded ", sweep);
    assert_problem(&problems, "a part changed", line, "re-run its sweep");
    snprintf(line, sizeof line, "stage 02-next: source changed since %s (recorded ", sanitizer);
    assert_problem(&problems, "a part changed", line, NULL);
    assert_int_equal(problems_naming(&problems, "stage 01-base"), 0);

    /* Listed as known (the hash now, its first 12 characters): accepted; a line that accepts
     * nothing is refused. */
    struct command_result *r = run_shell("STAGES_DIR='%s' tools/stages source-hash 02-next | cut -f2", stages);
    char now[80];
    assert_int_equal(sscanf(r->out, "%79s", now), 1);
    assert_int_equal(sh("printf '%s\\t02-next\\t%.12s\\ta comment only\\n%s\\t02-next\\t%s\\tsame\\n"
                        "%s\\t02-next\\t%s\\tsame\\n' >>'%s'",
                        campaign, now, sweep, now, sanitizer, now, changed_list),
                     0);
    if (provenance_problems(root, stages, unknown_list, changed_list, &problems)) {
        print_problems(NULL, &problems);
        fail_msg("changes listed as known were refused (above)");
    }
    assert_int_equal(sh("printf '%s\\t01-base\\t%s\\tnothing changed\\n' >>'%s'", campaign, now, changed_list), 0);
    assert_int_equal(provenance_problems(root, stages, unknown_list, changed_list, &problems), 1);
    assert_problem(&problems, "a line that accepts nothing", ", 01-base: listed in", "remove or update the line");
    /* The source changes again: the lines no longer hold. */
    assert_int_equal(sh("echo '// again' >>'%s/02-next/walk.cuh'", stages), 0);
    assert_int_equal(provenance_problems(root, stages, unknown_list, changed_list, &problems), 7);
    snprintf(line, sizeof line, "stage 02-next: source changed since %s", campaign);
    assert_problem(&problems, "changed again", line, NULL);
    assert_int_equal(sh("printf '# none\\n' >'%s'", changed_list), 0);

    /* The manifest's option list changes the hash; its lesson does not. */
    assert_int_equal(sh("sed -i 's/^lesson: .*/lesson: reworded/' '%s/01-base/manifest'", stages), 0);
    provenance_problems(root, stages, unknown_list, changed_list, &problems);
    assert_int_equal(problems_naming(&problems, "stage 01-base"), 0);
    assert_int_equal(sh("echo 'options: --frames' >>'%s/01-base/manifest'", stages), 0);
    provenance_problems(root, stages, unknown_list, changed_list, &problems);
    assert_int_equal(problems_naming(&problems, "stage 01-base: source changed"), 2);

    /* A stage folder gone. */
    assert_int_equal(sh("rm -r '%s/p01-base'", stages), 0);
    provenance_problems(root, stages, unknown_list, changed_list, &problems);
    assert_problem(&problems, "a stage folder gone", "stage p01-base: no stage folder has that name", sanitizer);

    /* The shared host code changed since a record (its hash edited): one line for the record. */
    assert_int_equal(sh("cd '%s/%s/sweeps' && awk -F'\\t' -v OFS='\\t' 'NR > 1 { $4 = \"feedfacefeedface\" } 1' "
                        "02-next--frames.provenance.tsv >t && mv t 02-next--frames.provenance.tsv",
                        root, gpu),
                     0);
    provenance_problems(root, stages, unknown_list, changed_list, &problems);
    snprintf(line, sizeof line, "changed since %s (recorded feedfacefeed, now ", sweep);
    assert_problem(&problems, "the shared host code", "the shared host code (common/", line);
    assert_int_equal(problems_naming(&problems, "the shared host code"), 1);

    /* Records without provenance: one not listed; a listed one that gained it; a line naming no
     * record; a provenance file of no record; a file that is not one. */
    assert_int_equal(sh("cd '%s/%s' && echo order >sweeps/01-base--block.csv && "
                        "cp sanitizer.provenance.tsv profiles/01-base.provenance.tsv && "
                        "printf '%s/%s/profiles/09-gone.profile.txt\\n' >>'%s' && "
                        "cp sanitizer.provenance.tsv profiles/07-stray.provenance.tsv && "
                        "printf 'stage\\tsource\\n' >sweeps/02-next--frames.provenance.tsv",
                        root, gpu, root, gpu, unknown_list),
                     0);
    provenance_problems(root, stages, unknown_list, changed_list, &problems);
    assert_problem(&problems, "a record without provenance", "sweeps/01-base--block.csv: no provenance file",
                   "not listed in");
    assert_problem(&problems, "a listed record with provenance", "profiles/01-base.profile.txt: has its provenance",
                   "take it off");
    assert_problem(&problems, "a line naming no record", "profiles/09-gone.profile.txt: listed in",
                   "no such record");
    assert_problem(&problems, "a stray provenance file", "profiles/07-stray.provenance.tsv: a provenance file of no",
                   NULL);
    assert_problem(&problems, "a bad header", "02-next--frames.provenance.tsv: its first line is not the header",
                   NULL);
    remove_temporary_folder(folder);
}

/* ---- The hash and the writer ---------------------------------------------------------------- */

static void test_the_hash_and_the_writer(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char stages[128], moved[128], here[4096];
    assert_non_null(getcwd(here, sizeof here));
    snprintf(stages, sizeof stages, "%s/stages", folder);
    snprintf(moved, sizeof moved, "%s/elsewhere/stages", folder);
    make_fake_stage(stages, "01-base", "none", NULL, NULL, 1);
    assert_int_equal(sh("cd '%s/01-base' && printf '#include \"raytrace/rt_stage.h\"\\n#include \"kernel.cuh\"\\n' "
                        ">>render.cu && printf '#include \"local.h\"\\n' >kernel.cuh && echo '// local' >local.h",
                        stages),
                     0);

    /* The files hashed: its parts in order (tools/stages parts), then the headers they include,
     * the common/ ones and its own, each once; the same hash wherever the stage folder lies. */
    struct command_result *r = run_shell("STAGES_DIR='%s' tools/stages source-hash --files 01-base | cut -c67-", stages);
    assert_int_equal(r->exit_code, 0);
    const char *want_start = "stages/01-base/render.cu\nstages/01-base/kernel.cuh\ncommon/raytrace/rt_stage.h\n";
    if (strncmp(r->out, want_start, strlen(want_start)) != 0 || !strstr(r->out, "\nstages/01-base/local.h\n") ||
        !strstr(r->out, "\ncommon/runtime/options.h\n"))
        fail_msg("source-hash --files named:\n%s", r->out);
    r = run_shell("STAGES_DIR='%s' tools/stages source-hash 01-base", stages);
    char hash[160];
    snprintf(hash, sizeof hash, "%.159s", r->out);
    assert_int_equal(sh("mkdir -p '%s/elsewhere' && cp -R '%s' '%s/elsewhere/'", folder, stages, folder), 0);
    r = run_shell("STAGES_DIR='%s' tools/stages source-hash 1", moved);
    assert_string_equal(r->out, hash);
    /* A header it includes changes it. */
    assert_int_equal(sh("echo '// more' >>'%s/01-base/local.h'", moved), 0);
    r = run_shell("STAGES_DIR='%s' tools/stages source-hash 01-base", moved);
    assert_int_equal(r->exit_code, 0);
    assert_true(strcmp(r->out, hash) != 0);

    /* The writer, from a stand-in checkout without .git (its tools/ and common/ this one's): the
     * header once, a row a stage a call; the executable's sha256, the source and runtime hashes
     * tools/stages prints; outside a git checkout the revision says so, and PROVENANCE_REVISION
     * names it; an executable missing is "unknown", not a failure. */
    assert_int_equal(sh("mkdir -p '%s/bin' '%s/repo' && echo binary >'%s/bin/01-base' && "
                        "ln -s '%s/tools' '%s/repo/tools' && ln -s '%s/common' '%s/repo/common'",
                        folder, folder, folder, here, folder, here, folder),
                     0);
    r = run_shell("cd '%s' && P=repo/tools/runner/provenance.sh && STAGES_DIR='%s' $P append p.tsv bin 01-base && "
                  "STAGES_DIR='%s' PROVENANCE_REVISION='abc1234-dirty' $P append p.tsv bin 01-base && "
                  "STAGES_DIR='%s' $P append p.tsv nowhere 01-base",
                  folder, stages, stages, stages);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "provenance: no executable in nowhere to hash for 01-base"));
    assert_int_equal(sh("cd '%s' && head -n 1 p.tsv | grep -qx \"$(printf '%s')\" && test $(wc -l <p.tsv) -eq 4",
                        folder, PROVENANCE_HEADER),
                     0);
    r = run_shell("sha256sum <'%s/bin/01-base' | cut -d' ' -f1 && STAGES_DIR='%s' tools/stages source-hash 01-base | "
                  "cut -f2 && tools/stages runtime-hash",
                  folder, stages);
    char binary[80], source[80], runtime[80], expected[512];
    assert_int_equal(sscanf(r->out, "%79s %79s %79s", binary, source, runtime), 3);
    snprintf(expected, sizeof expected, "01-base\t%s\t%s\t%s\tunknown (not a git checkout)\t", source, binary, runtime);
    r = run_shell("sed -n 2p '%s/p.tsv'", folder);
    if (strncmp(r->out, expected, strlen(expected)) != 0)
        fail_msg("row 1: '%s', expected it to start '%s'", r->out, expected);
    r = run_shell("sed -n 3p '%s/p.tsv' | cut -f5", folder);
    assert_string_equal(r->out, "abc1234-dirty\n");
    r = run_shell("sed -n 4p '%s/p.tsv' | cut -f3", folder);
    assert_string_equal(r->out, "unknown (no nowhere/01-base)\n");
    /* write makes the file anew; a stage without a render.cu gets an unknown source hash. */
    make_fake_stage(stages, "02-bare", "01-base", NULL, NULL, 0);
    r = run_shell("cd '%s' && STAGES_DIR='%s' repo/tools/runner/provenance.sh write p.tsv bin 01-base 02-bare "
                  "&& cut -f1,2 p.tsv",
                  folder, stages);
    assert_int_equal(r->exit_code, 0);
    snprintf(expected, sizeof expected, "stage\tsource_hash\n01-base\t%s\n02-bare\tunknown (tools/stages source-hash failed)\n",
             source);
    assert_string_equal(r->out, expected);
    assert_non_null(strstr(r->err, "provenance: no source hash for 02-bare"));

    /* In this checkout: git describe, "-dirty" only for changes outside results/. */
    r = run_shell("git rev-parse --is-inside-work-tree 2>/dev/null && git describe --always");
    if (r->exit_code == 0) {
        char described[128];
        assert_int_equal(sscanf(strchr(r->out, '\n') + 1, "%127s", described), 1);
        r = run_shell("tools/runner/provenance.sh revision");
        assert_int_equal(r->exit_code, 0);
        assert_true(strncmp(r->out, described, strlen(described)) == 0);
        int dirty = run_shell("git diff --quiet HEAD -- . ':(exclude)results'")->exit_code != 0;
        r = run_shell("tools/runner/provenance.sh revision");
        assert_int_equal(strstr(r->out, "-dirty") != NULL, dirty);
    }
    remove_temporary_folder(folder);
}

int main(void)
{
    unsetenv("PROVENANCE_REVISION");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_committed_records),
        cmocka_unit_test(test_the_check_fails_when_it_should),
        cmocka_unit_test(test_the_hash_and_the_writer),
    };
    return cmocka_run_group_tests_name("the records' provenance", tests, NULL, NULL);
}
