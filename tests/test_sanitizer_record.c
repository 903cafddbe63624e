/* The course's compute-sanitizer record, results/reference/nvidia-h100-80gb-hbm3/sanitizer.txt
 * (tools/sanitize.sh on the H100): it must name every stage folder (tools/stages list) with each of
 * the four tools on each of the stage's scenes (the main track's scenes/quick.scene and
 * scenes/odd-size.scene, the path-tracing track's scenes/pt-quick.scene: sanitize.sh's defaults),
 * every run clean, both in its sections ("=== STAGE, TOOL, SCENE: RESULT (N s)") and in the summary
 * table that ends it; a stage the report names that is no stage folder any more means the record
 * is out of date too. The record is read, not made: no GPU needed.
 * The check is shown to fail where it should, on reports that tools/sanitize.sh writes for made-up
 * stages with a stand-in compute-sanitizer (tests/fixtures/fake-compute-sanitizer.sh): a stage, a
 * tool or a scene left out, a run with errors, a summary row that is not clean. And sanitize.sh
 * writes the same report with one run at a time or four at once (their runs ending in another
 * order), each of the four on ports of its own. Run from the repository root.
 * A stage added after the last device run may be listed in tests/sanitizer-pending.tsv, with why,
 * until the record is made again: a stage listed there that the record names, or that is no stage
 * folder, is a problem too, so the list cannot outlive its reason. */
#include <glob.h>

#include "test_support.h"

#define RECORD "results/reference/nvidia-h100-80gb-hbm3/sanitizer.txt"
#define PENDING "tests/sanitizer-pending.tsv"
#define RECORD_COMMAND "RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 tools/sanitize.sh"
#define FAKE_SANITIZER "tests/fixtures/fake-compute-sanitizer.sh"
#define FAKE_NVIDIA_SMI "tests/fixtures/fake-nvidia-smi.sh"
#define MAX_RUNS 2048
#define NAME_MAX_CHARS 128

static const char *const sanitizer_tools[] = {"memcheck", "racecheck", "initcheck", "synccheck"};
#define TOOL_COUNT (sizeof sanitizer_tools / sizeof *sanitizer_tools)
static const char *const main_scenes[] = {"scenes/quick.scene", "scenes/odd-size.scene", NULL};
static const char *const pt_scenes[] = {"scenes/pt-quick.scene", NULL};

/* ---- Reading a report -------------------------------------------------------------------- */

struct run {       /* a section: "=== STAGE, TOOL, SCENE: RESULT (N s)" */
    char stage[NAME_MAX_CHARS], tool[NAME_MAX_CHARS], scene[256], result[256];
};
struct row {       /* a row of the summary table: STAGE TOOL and one cell per scene */
    char stage[NAME_MAX_CHARS], tool[NAME_MAX_CHARS], cells[512];
    int words, clean; /* the cells' words ("2 errors" is two), and how many of them are "clean" */
};
struct report {
    int runs, rows, has_summary, summary_not_clean;
    struct run run[MAX_RUNS];
    struct row row[MAX_RUNS];
};

/* The text between start and the first occurrence of separator (NULL when there is none) into
 * out; returns where the rest begins. */
static const char *take_until(const char *start, const char *separator, char *out, size_t size)
{
    const char *end = strstr(start, separator);
    if (!end)
        return NULL;
    snprintf(out, size, "%.*s", (int)(end - start), start);
    return end + strlen(separator);
}

/* A section's heading line, without "=== ": 1 when it has a stage, tool, scene and result. The
 * result loses its " (N s)" (the run's seconds) when it ends with one. */
static int parse_section(const char *line, struct run *run)
{
    const char *rest = take_until(line, ", ", run->stage, sizeof run->stage);
    rest = rest ? take_until(rest, ", ", run->tool, sizeof run->tool) : NULL;
    rest = rest ? take_until(rest, ": ", run->scene, sizeof run->scene) : NULL;
    if (!rest)
        return 0;
    snprintf(run->result, sizeof run->result, "%s", rest);
    char *open = strrchr(run->result, '(');
    size_t length = strlen(run->result);
    if (open && open > run->result && open[-1] == ' ' && length >= 3 &&
        strcmp(run->result + length - 3, " s)") == 0) {
        char *digit = open + 1;
        while (*digit >= '0' && *digit <= '9')
            digit++;
        if (digit > open + 1 && digit == run->result + length - 3)
            open[-1] = '\0';
    }
    return 1;
}

/* The words of line (separated by spaces) into words; returns how many (at most max). */
static int split_words(char *line, char **words, int max)
{
    int count = 0;
    for (char *save = NULL, *word = strtok_r(line, " ", &save); word && count < max;
         word = strtok_r(NULL, " ", &save))
        words[count++] = word;
    return count;
}

/* Reads the report at path into report: 0, or -1 when it cannot be read. */
static int read_report(const char *path, struct report *report)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    memset(report, 0, sizeof *report);
    static char line[8192];
    int in_summary = 0;
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "=== ", 4) == 0) {
            in_summary = 0; /* sections come before the summary; one after it would be a new report */
            if (report->runs < MAX_RUNS && parse_section(line + 4, &report->run[report->runs]))
                report->runs++;
            continue;
        }
        if (strncmp(line, "Summary (", 9) == 0) {
            int runs = 0, not_clean = 0;
            report->has_summary = sscanf(line, "Summary (%d runs, %d not clean", &runs, &not_clean) == 2;
            report->summary_not_clean = not_clean;
            in_summary = 1;
            continue;
        }
        if (!in_summary || line[0] == '\0')
            continue;
        char copy[sizeof line], *words[64];
        snprintf(copy, sizeof copy, "%s", line);
        int count = split_words(copy, words, 64);
        if (count >= 2 && strcmp(words[0], "stage") == 0 && strcmp(words[1], "tool") == 0)
            continue; /* a heading: "stage tool" and the scenes of the rows under it */
        if (count < 2 || report->rows >= MAX_RUNS)
            continue;
        struct row *row = &report->row[report->rows++];
        snprintf(row->stage, sizeof row->stage, "%s", words[0]);
        snprintf(row->tool, sizeof row->tool, "%s", words[1]);
        /* The cells as written (one may hold spaces: "2 errors", "failed (exit 2)"). */
        const char *cells = line + (words[1] - copy) + strlen(words[1]);
        while (*cells == ' ')
            cells++;
        snprintf(row->cells, sizeof row->cells, "%s", cells);
        for (size_t n = strlen(row->cells); n > 0 && row->cells[n - 1] == ' '; n--)
            row->cells[n - 1] = '\0';
        row->words = count - 2;
        for (int k = 2; k < count; k++)
            row->clean += strcmp(words[k], "clean") == 0;
    }
    fclose(file);
    return 0;
}

/* ---- The check --------------------------------------------------------------------------- */

static const struct run *find_run(const struct report *report, const char *stage, const char *tool,
                                  const char *scene)
{
    for (int k = 0; k < report->runs; k++)
        if (strcmp(report->run[k].stage, stage) == 0 && strcmp(report->run[k].tool, tool) == 0 &&
            strcmp(report->run[k].scene, scene) == 0)
            return &report->run[k];
    return NULL;
}

static const struct row *find_row(const struct report *report, const char *stage, const char *tool)
{
    for (int k = 0; k < report->rows; k++)
        if (strcmp(report->row[k].stage, stage) == 0 && strcmp(report->row[k].tool, tool) == 0)
            return &report->row[k];
    return NULL;
}

static int names_stage(const struct report *report, const char *stage)
{
    for (int k = 0; k < report->runs; k++)
        if (strcmp(report->run[k].stage, stage) == 0)
            return 1;
    for (int k = 0; k < report->rows; k++)
        if (strcmp(report->row[k].stage, stage) == 0)
            return 1;
    return 0;
}

/* The list of stages not sanitized yet (PENDING's format: STAGE, a tab, why; # comments); the
 * made-up stages' checks point it at a file of their own. */
static const char *pending_list = PENDING;
#define MAX_PENDING 64

/* The stages pending_list names, into names; returns how many (0 when there is no list). */
static int read_pending(char names[][NAME_MAX_CHARS])
{
    FILE *file = fopen(pending_list, "r");
    if (!file)
        return 0;
    char line[1024];
    int count = 0;
    while (count < MAX_PENDING && fgets(line, sizeof line, file)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        snprintf(names[count], NAME_MAX_CHARS, "%.*s", (int)strcspn(line, "\t\n"), line);
        count++;
    }
    fclose(file);
    return count;
}

static int is_pending(char names[][NAME_MAX_CHARS], int count, const char *stage)
{
    for (int k = 0; k < count; k++)
        if (strcmp(names[k], stage) == 0)
            return 1;
    return 0;
}

static int is_a_stage(const struct stage_list *stages, const char *name)
{
    for (int k = 0; k < stages->count; k++)
        if (strcmp(stages->names[k], name) == 0)
            return 1;
    return 0;
}

/* What is wrong with the report at path, one line each, for the stage folders of stages_dir (NULL:
 * the repository's); returns how many problems (0: every stage, tool and scene there, clean). */
static int record_problems(const char *path, const char *stages_dir, struct problems *problems)
{
    static struct report report;
    static struct stage_list stages;
    memset(problems, 0, sizeof *problems);
    if (read_report(path, &report) != 0) {
        add_problem(problems, "%s: missing", path);
        return problems->count;
    }
    list_stages(stages_dir, &stages);
    static char pending[MAX_PENDING][NAME_MAX_CHARS];
    int pending_count = read_pending(pending);
    for (int k = 0; k < pending_count; k++) {
        if (!is_a_stage(&stages, pending[k]))
            add_problem(problems, "%s: in %s, but no stage folder has that name", pending[k], pending_list);
        else if (names_stage(&report, pending[k]))
            add_problem(problems, "%s: in the report and in %s: take it off that list", pending[k],
                        pending_list);
    }
    if (!report.has_summary)
        add_problem(problems, "no summary table (\"Summary (N runs, N not clean, ...\"): the run did not finish");
    else if (report.summary_not_clean != 0)
        add_problem(problems, "the summary counts %d runs not clean", report.summary_not_clean);
    for (int s = 0; s < stages.count; s++) {
        const char *stage = stages.names[s];
        if (!names_stage(&report, stage)) {
            if (!is_pending(pending, pending_count, stage))
                add_problem(problems, "%s: missing from the report (no run, no summary row)", stage);
            continue;
        }
        const char *const *scenes = stages.pt[s] ? pt_scenes : main_scenes;
        int scene_count = 0;
        while (scenes[scene_count])
            scene_count++;
        for (size_t t = 0; t < TOOL_COUNT; t++) {
            const char *tool = sanitizer_tools[t];
            for (const char *const *scene = scenes; *scene; scene++) {
                const struct run *run = find_run(&report, stage, tool, *scene);
                if (!run)
                    add_problem(problems, "%s: no %s run on %s", stage, tool, *scene);
                else if (strcmp(run->result, "clean") != 0)
                    add_problem(problems, "%s, %s, %s: %s (not clean)", stage, tool, *scene, run->result);
            }
            const struct row *row = find_row(&report, stage, tool);
            if (!row)
                add_problem(problems, "%s: no %s row in the summary table", stage, tool);
            else if (row->words != scene_count || row->clean != scene_count)
                add_problem(problems, "%s, %s: the summary row reads \"%s\", not clean on each of its %d scenes",
                            stage, tool, row->cells, scene_count);
        }
    }
    /* A stage the report names that is no stage folder: renamed or removed since the record. */
    for (int k = 0; k < report.runs; k++) {
        const char *stage = report.run[k].stage;
        int first = 1;
        for (int j = 0; j < k && first; j++)
            first = strcmp(report.run[j].stage, stage) != 0;
        if (first && !is_a_stage(&stages, stage))
            add_problem(problems, "%s: in the report, but no stage folder has that name", stage);
    }
    return problems->count;
}

/* ---- The record -------------------------------------------------------------------------- */

static void test_the_record_names_every_stage_all_clean(void **state)
{
    (void)state;
    static struct problems problems;
    if (access(RECORD, F_OK) != 0)
        fail_msg("%s is missing: make it on the H100 (build every stage first) with\n    %s", RECORD,
                 RECORD_COMMAND);
    if (record_problems(RECORD, NULL, &problems)) {
        print_problems(RECORD, &problems);
        fail_msg("%s: %d problems (above): make it again on the H100 with\n    %s", RECORD, problems.count,
                 RECORD_COMMAND);
    }
}

/* ---- The check and sanitize.sh, on made-up stages ------------------------------------------ */

/* Made-up stage folders in folder/stages (two main stages, a side stage, a path-tracing stage)
 * and an executable for each in folder/bin: sanitize.sh checks that one is there, the stand-in
 * compute-sanitizer runs none. */
static void make_stages(const char *folder)
{
    static const struct {
        const char *name, *builds_on, *chapter, *extra;
    } stages[] = {
        {"01-base", "none", "Fake", ""},
        {"07-shared", "01-base", "Fake", ""},
        {"07a-side", "07-shared", "Fake", ""},
        {"p01-base", "none", "P. Fake", "estimator: path\n"},
    };
    for (size_t k = 0; k < sizeof stages / sizeof *stages; k++) {
        struct command_result *r = run_shell(
            "mkdir -p '%s/stages/%s' '%s/bin' && printf 'lesson: made up\\nbuilds-on: %s\\nchapter: %s\\n%s' "
            ">'%s/stages/%s/manifest' && cp /bin/true '%s/bin/%s'",
            folder, stages[k].name, folder, stages[k].builds_on, stages[k].chapter, stages[k].extra, folder,
            stages[k].name, folder, stages[k].name);
        assert_int_equal(r->exit_code, 0);
    }
}

/* tools/sanitize.sh on the made-up stages of folder, with the stand-ins, ENV (more VAR=value words)
 * before it, into folder/NAME/ (results) and folder/NAME.out (what it printed); its exit status.
 * The report's path goes to report. */
static int sanitize(const char *folder, const char *name, const char *env, char *report, size_t size)
{
    struct command_result *r = run_shell(
        "rm -rf '%s/%s' && STAGES_DIR='%s/stages' BUILD='%s/bin' RESULTS='%s/%s' COMPUTE_SANITIZER=\"$PWD/" FAKE_SANITIZER
        "\" NVIDIA_SMI=\"$PWD/" FAKE_NVIDIA_SMI "\" %s tools/sanitize.sh >'%s/%s.out' 2>&1",
        folder, name, folder, folder, folder, name, env, folder, name);
    glob_t found;
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s/%s/*/sanitizer.txt", folder, name);
    if (glob(pattern, 0, NULL, &found) == 0 && found.gl_pathc == 1)
        snprintf(report, size, "%s", found.gl_pathv[0]);
    else
        snprintf(report, size, "%s/%s/no-report", folder, name);
    globfree(&found);
    return r->exit_code;
}

/* Fails unless the report has a problem whose line holds every one of the words given. */
static void assert_problem(const char *report, const char *stages_dir, const char *case_name, const char *want,
                           const char *and_want)
{
    static struct problems problems;
    if (record_problems(report, stages_dir, &problems) == 0)
        fail_msg("%s: the check found nothing wrong", case_name);
    for (char *line = problems.text; *line;) {
        size_t n = strcspn(line, "\n");
        char one[1024];
        snprintf(one, sizeof one, "%.*s", (int)(n < 1023 ? n : 1023), line);
        if (strstr(one, want) && (!and_want || strstr(one, and_want)))
            return;
        line += n + (line[n] == '\n');
    }
    print_problems(report, &problems);
    fail_msg("%s: expected a problem naming '%s'%s%s; got those above", case_name, want, and_want ? " and " : "",
             and_want ? and_want : "");
}

static void test_the_check_fails_when_it_should(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char stages_dir[256], report[512];
    static struct problems problems;
    make_stages(folder);
    snprintf(stages_dir, sizeof stages_dir, "%s/stages", folder);
    char pending_file[512]; /* the made-up stages' own list of pending stages, none at first */
    snprintf(pending_file, sizeof pending_file, "%s/pending.tsv", folder);
    pending_list = pending_file;

    /* Every stage, tool and scene, clean: nothing to report. */
    assert_int_equal(sanitize(folder, "all", "SANITIZE_JOBS=4", report, sizeof report), 0);
    if (record_problems(report, stages_dir, &problems)) {
        print_problems(report, &problems);
        fail_msg("a whole, clean report was refused (above)");
    }

    /* No report at all. */
    snprintf(report, sizeof report, "%s/none/sanitizer.txt", folder);
    assert_problem(report, stages_dir, "no report", "missing", NULL);

    /* A stage left out of the run (and so of the report): named. */
    assert_int_equal(sanitize(folder, "stage", "SANITIZE_JOBS=4 SANITIZE_STAGES='01-base 07-shared p01-base'",
                              report, sizeof report), 0);
    assert_problem(report, stages_dir, "a stage left out", "07a-side: missing from the report", NULL);

    /* The same stage listed as pending: accepted; a pending stage the report names, or one that
     * is no stage folder: refused. */
    assert_int_equal(run_shell("printf '# stage\\twhy\\n07a-side\\tadded after the device run\\n' > '%s'",
                               pending_file)->exit_code, 0);
    if (record_problems(report, stages_dir, &problems)) {
        print_problems(report, &problems);
        fail_msg("a stage listed as pending was refused (above)");
    }
    char whole[512];
    assert_int_equal(sanitize(folder, "all", "SANITIZE_JOBS=4", whole, sizeof whole), 0);
    assert_problem(whole, stages_dir, "a pending stage in the report", "07a-side: in the report and in",
                   "take it off");
    assert_int_equal(run_shell("printf '09-gone\\tno such stage\\n' > '%s'", pending_file)->exit_code, 0);
    assert_problem(whole, stages_dir, "a pending stage that is none", "09-gone: in", "no stage folder");
    assert_int_equal(run_shell("rm '%s'", pending_file)->exit_code, 0);

    /* A tool, a scene left out. */
    assert_int_equal(sanitize(folder, "tool", "SANITIZE_JOBS=4 SANITIZE_TOOLS='memcheck racecheck initcheck'",
                              report, sizeof report), 0);
    assert_problem(report, stages_dir, "a tool left out", "p01-base: no synccheck run", NULL);
    assert_problem(report, stages_dir, "a tool left out", "07a-side: no synccheck row", NULL);
    assert_int_equal(sanitize(folder, "scene", "SANITIZE_JOBS=4 SANITIZE_SCENES=scenes/quick.scene",
                              report, sizeof report), 0);
    assert_problem(report, stages_dir, "a scene left out", "01-base: no racecheck run on scenes/odd-size.scene",
                   NULL);
    assert_problem(report, stages_dir, "a scene left out", "01-base, racecheck: the summary row", "not clean");

    /* A run with errors: sanitize.sh fails, and the check names the run and its row. */
    assert_int_equal(sanitize(folder, "errors", "SANITIZE_JOBS=4 FAKE_SANITIZER_ERRORS=07-shared:racecheck",
                              report, sizeof report), 1);
    assert_problem(report, stages_dir, "a run with errors", "07-shared, racecheck, scenes/odd-size.scene: 2 errors",
                   NULL);
    assert_problem(report, stages_dir, "a run with errors", "07-shared, racecheck: the summary row", "2 errors");
    assert_problem(report, stages_dir, "a run with errors", "the summary counts 2 runs not clean", NULL);

    /* Sections clean but a summary cell not: the table is read on its own. */
    assert_int_equal(sanitize(folder, "cell", "SANITIZE_JOBS=4", report, sizeof report), 0);
    assert_int_equal(run_shell("sed -i -E '/^p01-base +initcheck/s/clean/timed out/' '%s'", report)->exit_code, 0);
    assert_problem(report, stages_dir, "a summary cell", "p01-base, initcheck: the summary row reads \"timed out\"",
                   NULL);

    /* A stage folder gone since the report was made. */
    assert_int_equal(sanitize(folder, "gone", "SANITIZE_JOBS=4", report, sizeof report), 0);
    assert_int_equal(run_shell("rm -r '%s/07a-side'", stages_dir)->exit_code, 0);
    assert_problem(report, stages_dir, "a stage folder gone", "07a-side: in the report, but no stage folder", NULL);
    pending_list = PENDING;
    remove_temporary_folder(folder);
}

/* The report without what differs from one run to the next (the date, the command, the number
 * of jobs, each run's seconds) into a file beside it, REPORT.normalised. */
static void normalise(const char *report)
{
    assert_int_equal(run_shell("sed -E '/^(date|command|jobs): /d; s/ \\([0-9]+ s\\)$//' '%s' >'%s.normalised'",
                               report, report)->exit_code, 0);
}

static void test_runs_at_once_give_the_same_report(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char one[512], four[512], env[512];
    make_stages(folder);
    snprintf(env, sizeof env, "SANITIZE_JOBS=1 FAKE_SANITIZER_PORTS='%s/ports-one'", folder);
    assert_int_equal(sanitize(folder, "one", env, one, sizeof one), 0);
    snprintf(env, sizeof env, "SANITIZE_JOBS=4 FAKE_SANITIZER_PORTS='%s/ports-four'", folder);
    assert_int_equal(sanitize(folder, "four", env, four, sizeof four), 0);
    normalise(one);
    normalise(four);
    struct command_result *r = run_shell("diff '%s.normalised' '%s.normalised'", one, four);
    if (r->exit_code != 0)
        fail_msg("one run at a time and four at once gave different reports:\n%.3000s", r->out);
    /* Every run is there: the 3 main stages' 4 tools on 2 scenes, the path-tracing stage's on 1. */
    r = run_shell("grep -c '^=== .*: clean ([0-9]* s)$' '%s'", four);
    assert_int_equal(atoi(r->out), 28);
    assert_int_equal(run_shell("grep -q '^jobs: *4 at once' '%s'", four)->exit_code, 0);
    /* Its provenance: the revision in its header (tools/runner/provenance.sh revision), and beside
     * it sanitizer.provenance.tsv, a row per stage checked with its executable's sha256. */
    r = run_shell("tools/runner/provenance.sh revision");
    char revision[256];
    snprintf(revision, sizeof revision, "%.*s", (int)strcspn(r->out, "\n"), r->out);
    assert_int_equal(run_shell("grep -qxF 'revision:  %s' '%s'", revision, four)->exit_code, 0);
    assert_int_equal(run_shell("cd \"$(dirname '%s')\" && cut -f1 sanitizer.provenance.tsv | paste -sd' ' - | "
                               "grep -qx 'stage 01-base 07-shared 07a-side p01-base' && test \"$(awk -F'\t' "
                               "'$1 == \"07-shared\" { print $3 }' sanitizer.provenance.tsv)\" = "
                               "\"$(sha256sum <'%s/bin/07-shared' | cut -d' ' -f1)\"",
                               four, folder)->exit_code,
                     0);
    /* The four ended their runs in another order than the report's (the stand-in's memcheck runs
     * take longest): the report's order is sanitize.sh's doing. */
    assert_int_equal(run_shell("cd '%s' && for n in one four; do grep '^sanitize: .* s)$' $n.out | "
                               "sed -E 's/ [(][0-9]+ s[)]$//' >$n.progress; done && test -s one.progress",
                               folder)->exit_code, 0);
    assert_int_equal(run_shell("cd '%s' && sort one.progress >one.sorted && sort four.progress | cmp -s one.sorted -",
                               folder)->exit_code, 0);
    assert_int_equal(run_shell("cmp -s '%s/one.progress' '%s/four.progress'", folder, folder)->exit_code, 1);
    /* One at a time: compute-sanitizer's own ports. Four at once: ten ports for each job slot,
     * never one port for two runs at once. */
    r = run_shell("sort -u '%s/ports-one' | paste -sd' ' -", folder);
    assert_string_equal(r->out, "default\n");
    r = run_shell("sort -u '%s/ports-four' | paste -sd' ' -", folder);
    assert_string_equal(r->out, "49152 49162 49172 49182\n");
    remove_temporary_folder(folder);
}

/* No GPU: skipped, status 0. A bad SANITIZE_JOBS: refused in one line, status 2. */
static void test_no_gpu_and_bad_jobs(void **state)
{
    (void)state;
    struct command_result *r = run_shell("NVIDIA_SMI=false tools/sanitize.sh");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "sanitize: skipped: no NVIDIA GPU here"));
    const char *bad[] = {"0", "x", "257", "-3", "4x", "99999999999999999999", "012"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        r = run_shell("NVIDIA_SMI=\"$PWD/" FAKE_NVIDIA_SMI "\" COMPUTE_SANITIZER=\"$PWD/" FAKE_SANITIZER
                      "\" SANITIZE_JOBS='%s' tools/sanitize.sh",
                      bad[k]);
        if (r->exit_code != 2 || !strstr(r->err, "SANITIZE_JOBS="))
            fail_msg("SANITIZE_JOBS=%s: expected status 2 and a line naming SANITIZE_JOBS; got %d: %s%s", bad[k],
                     r->exit_code, r->out, r->err);
    }
}

int main(void)
{
    unsetenv("SANITIZE_STAGES"); /* the tests say which stages, tools, scenes and jobs they mean */
    unsetenv("SANITIZE_TOOLS");
    unsetenv("SANITIZE_SCENES");
    unsetenv("SANITIZE_PT_SCENES");
    unsetenv("SANITIZE_JOBS");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_record_names_every_stage_all_clean),
        cmocka_unit_test(test_the_check_fails_when_it_should),
        cmocka_unit_test(test_runs_at_once_give_the_same_report),
        cmocka_unit_test(test_no_gpu_and_bad_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
