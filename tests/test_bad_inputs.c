/* Every bad input answered: runs each row of tests/bad_inputs.tsv (see its header) against every
 * program it applies to (the main chain's stages build/NN-* and build/cpu-reference, the
 * path-tracing track's stages build/pNN-* and build/pt-reference), and checks that the program
 * exits with the status given, prints nothing on stdout and exactly one line "NAME: error: ..."
 * on stderr holding the expected text, and leaves no output file and no *.partial-* file behind.
 * Input errors are found before the GPU is touched, so this passes with and without a GPU (the
 * rows that reach the GPU say what they expect without one). Run from the repository root.
 * Runs are batched: a program answers in a few milliseconds, and a shell, a temporary folder and
 * its removal for each of the thousands of runs cost many times that. So one shell runs a row
 * against all its programs, in groups at once (one a core), each program with a fresh $TMP of its
 * own, writing its exit status, stdout, stderr and the *.partial-* files then in the repository
 * root to files that the checks read; a program still running after a minute alone is stopped
 * and reported (run_programs()). */
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>

#include "raytrace/scene.h"
#include "test_support.h"

#define TABLE_PATH "tests/bad_inputs.tsv"
#define BAD_SCENES "tests/bad-scenes"
#define MAX_ROWS 256
#define MAX_PROGRAMS 96
#define PROGRAM_TIMEOUT_SECONDS 60 /* what a program has, alone, before it is stopped */
#define MAX_GROUPS 8

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef UNDER_ADDRESS_SANITIZER
#define UNDER_ADDRESS_SANITIZER 0
#endif

struct row {
    int line;
    char *name, *programs, *command, *expected, *expected_without_gpu;
    int status;
};

static struct row rows[MAX_ROWS];
static int row_count;

/* build/NN-* and build/NNx-* executables (sorted, as glob gives them) and build/cpu-reference;
 * the path-tracing track's build/pNN-* and build/pNNx-* (not their kernel benchmarks
 * build/<stage>-bench) and build/pt-reference. */
static char *stages[MAX_PROGRAMS];
static int stage_count;
static char cpu_reference[PATH_MAX];
static char *pt_stages[MAX_PROGRAMS];
static int pt_stage_count;
static char pt_reference[PATH_MAX];
static char repository[PATH_MAX];

static char *trim(char *s)
{
    while (*s == ' ')
        ++s;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Reads the table; on a malformed row, prints why and returns -1. */
static int load_table(void)
{
    FILE *file = fopen(TABLE_PATH, "r");
    if (!file) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", TABLE_PATH);
        return -1;
    }
    char buffer[4096];
    int line = 0;
    while (fgets(buffer, sizeof buffer, file)) {
        ++line;
        char *text = trim(buffer);
        if (*text == '\0' || *text == '#')
            continue;
        char *fields[7] = {0};
        int count = 0;
        for (char *cursor = text; cursor && count < 7; ++count) {
            fields[count] = cursor;
            cursor = strchr(cursor, '\t');
            if (cursor)
                *cursor++ = '\0';
        }
        if (count < 5 || count > 6 || row_count == MAX_ROWS) {
            fprintf(stderr, "%s:%d: expected 5 or 6 tab-separated fields, got %d\n", TABLE_PATH,
                    line, count);
            fclose(file);
            return -1;
        }
        struct row *r = &rows[row_count++];
        r->line = line;
        r->name = strdup(trim(fields[0]));
        r->programs = strdup(trim(fields[1]));
        r->command = strdup(trim(fields[2]));
        r->expected = strdup(trim(fields[3]));
        r->status = atoi(fields[4]);
        r->expected_without_gpu = count == 6 && strcmp(trim(fields[5]), "-") != 0
                                      ? strdup(trim(fields[5]))
                                      : NULL;
    }
    fclose(file);
    return 0;
}

/* The executables matching build/<glob> into list (not *.resources.txt, not *-bench). */
static void find_stages(const char *glob_pattern, char **list, int *count)
{
    char pattern[PATH_MAX];
    snprintf(pattern, sizeof pattern, "%s/%s", test_build_dir(), glob_pattern);
    glob_t found;
    if (glob(pattern, 0, NULL, &found) == 0) {
        for (size_t i = 0; i < found.gl_pathc && *count < MAX_PROGRAMS; ++i) {
            const char *path = found.gl_pathv[i], *name = strrchr(path, '/') + 1;
            size_t length = strlen(name);
            struct stat info;
            /* build/p01-base, not build/p01-base.resources.txt nor build/p01-base-bench */
            if (strchr(name, '.') || (length > 6 && strcmp(name + length - 6, "-bench") == 0) ||
                stat(path, &info) != 0 || !S_ISREG(info.st_mode) || access(path, X_OK) != 0)
                continue;
            list[(*count)++] = strdup(path);
        }
        globfree(&found);
    }
}

static void find_program(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", test_build_dir(), name);
    if (access(path, X_OK) != 0)
        path[0] = '\0';
}

static void find_programs(void)
{
    find_stages("[0-9][0-9]*-*", stages, &stage_count);
    find_stages("p[0-9][0-9]*-*", pt_stages, &pt_stage_count);
    find_program("cpu-reference", cpu_reference, sizeof cpu_reference);
    find_program("pt-reference", pt_reference, sizeof pt_reference);
}

/* NN or NN+ (after a 'p' for the path-tracing track): selects the stages of that number (side
 * stages included: 07 is 07 and 07a ... 07f) or, with '+', that number and later; pNNx one side
 * stage by its whole name up to the '-', and pNN- the chain stage NN alone, without its side
 * stages. 0 when none is built here. */
static int select_by_number(const char *token, char **list, int count, int *selected)
{
    const char *digits = token[0] == 'p' ? token + 1 : token;
    size_t length = strlen(digits);
    int number = atoi(digits), and_later = length && digits[length - 1] == '+';
    int side = length == 3 && isalpha((unsigned char)digits[2]), any = 0;
    int alone = length == 3 && digits[2] == '-';
    for (int i = 0; i < count; ++i) {
        const char *name = strrchr(list[i], '/') + 1;
        int n = stage_number(list[i]);
        int match = alone  ? strncmp(name, token, strlen(token)) == 0
                    : side ? strncmp(name, token, strlen(token)) == 0 && name[strlen(token)] == '-'
                           : n == number || (and_later && n > number);
        if (match)
            selected[i] = any = 1;
    }
    return any;
}

/* The programs a row's "programs" field names that are built here; notes in missing what the
 * field names but is not built (e.g. a stage still being written). */
static int programs_of(const struct row *r, const char **out, char *missing, size_t missing_size)
{
    int selected[MAX_PROGRAMS] = {0}, pt_selected[MAX_PROGRAMS] = {0}, cpu = 0, pt_cpu = 0;
    int count = 0;
    char field[256];
    snprintf(field, sizeof field, "%s", r->programs);
    missing[0] = '\0';
    for (char *token = strtok(field, ","); token; token = strtok(NULL, ",")) {
        token = trim(token);
        if (strcmp(token, "all") == 0 || strcmp(token, "stages") == 0) {
            for (int i = 0; i < stage_count; ++i)
                selected[i] = 1;
            cpu |= strcmp(token, "all") == 0;
        } else if (strcmp(token, "cpu") == 0) {
            cpu = 1;
            if (!cpu_reference[0])
                snprintf(missing + strlen(missing), missing_size - strlen(missing),
                         " cpu-reference");
        } else if (isdigit((unsigned char)token[0])) {
            if (!select_by_number(token, stages, stage_count, selected))
                snprintf(missing + strlen(missing), missing_size - strlen(missing),
                         " stage %s", token);
        } else if (strcmp(token, "pt") == 0 || strcmp(token, "ptstages") == 0) {
            for (int i = 0; i < pt_stage_count; ++i)
                pt_selected[i] = 1;
            pt_cpu |= strcmp(token, "pt") == 0;
            if (!pt_stage_count)
                snprintf(missing + strlen(missing), missing_size - strlen(missing),
                         " path-tracing stages");
        } else if (strcmp(token, "ptref") == 0) {
            pt_cpu = 1;
        } else if (token[0] == 'p' && isdigit((unsigned char)token[1])) {
            if (!select_by_number(token, pt_stages, pt_stage_count, pt_selected))
                snprintf(missing + strlen(missing), missing_size - strlen(missing),
                         " stage %s", token);
        } else {
            fail_msg("%s:%d: unknown program '%s' (all, stages, cpu, NN, NN+, pt, ptstages, "
                     "ptref, pNN, pNN+, pNNx, pNN-)",
                     TABLE_PATH, r->line, token);
        }
    }
    if (pt_cpu && !pt_reference[0])
        snprintf(missing + strlen(missing), missing_size - strlen(missing), " pt-reference");
    for (int i = 0; i < stage_count; ++i)
        if (selected[i])
            out[count++] = stages[i];
    if (cpu && cpu_reference[0])
        out[count++] = cpu_reference;
    for (int i = 0; i < pt_stage_count; ++i)
        if (pt_selected[i])
            out[count++] = pt_stages[i];
    if (pt_cpu && pt_reference[0])
        out[count++] = pt_reference;
    return count;
}

/* The row's words: those after the program (or the command as written when it names $PROGRAM),
 * with --output "$TMP/out.png" added unless the row chooses its own output. */
static void row_words(const struct row *r, char *words, size_t size)
{
    const char *with_output = strstr(r->command, "--output") ? "" : " --output \"$TMP/out.png\"";
    const char *at = strstr(r->command, "$PROGRAM");
    if (at)
        snprintf(words, size, "%.*s$PROGRAM%s%s", (int)(at - r->command), r->command, with_output,
                 at + strlen("$PROGRAM"));
    else
        snprintf(words, size, "$PROGRAM%s %s", with_output, r->command);
}

/* The command one program of a row ran, whole: what a failure shows, to be run again by hand. */
static void program_command(const struct row *r, const char *program, const char *tmp,
                            char *command, size_t size)
{
    char words[2048];
    row_words(r, words, sizeof words);
    snprintf(command, size, "cd '%s' && TMP='%s' && PROGRAM='%s' && %s", repository, tmp, program,
             words);
}

/* Writes runs/group.sh, which runs a group of the row's programs one after another:
 *   sh runs/group.sh FOLDER INDEX PROGRAM [INDEX PROGRAM ...]
 * Program INDEX runs with FOLDER/INDEX as its $TMP (made fresh for it by run_batch()) and writes
 * its stdout, stderr and the *.partial-* files then in the repository root to FOLDER/INDEX.out,
 * .err and .partials, and last its exit status to FOLDER/INDEX.status: a status there means the
 * program finished and the rest was written. */
static void write_group_script(const struct row *r, const char *runs)
{
    char words[2048], path[128], script[2 * PATH_MAX + 4096];
    row_words(r, words, sizeof words);
    snprintf(path, sizeof path, "%s/group.sh", runs);
    snprintf(script, sizeof script,
             "cd '%s' || exit 1\n"
             "run_folder=$1\n"
             "shift\n"
             "while [ $# -gt 0 ]; do\n"
             "    run_index=$1 run_program=$2\n"
             "    shift 2\n"
             "    (TMP=\"$run_folder/$run_index\" && PROGRAM=\"$run_program\" && %s) \\\n"
             "        >\"$run_folder/$run_index.out\" 2>\"$run_folder/$run_index.err\"\n"
             "    run_status=$?\n"
             "    for partial in '%s'/*.partial-*; do\n"
             "        if [ -e \"$partial\" ]; then printf ' %%s' \"$partial\"; fi\n"
             "    done >\"$run_folder/$run_index.partials\"\n"
             "    echo $run_status >\"$run_folder/$run_index.status\"\n"
             "done\n",
             repository, words, repository);
    test_write_file(path, script);
}

/* How many groups of programs run at once: one a core, at most MAX_GROUPS (rows that reach the
 * GPU start CUDA in every program, and tests/run-tests.sh runs other tests beside this one), and
 * no more groups than programs. */
static int group_count(int programs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int groups = cores < 1 ? 1 : cores > MAX_GROUPS ? MAX_GROUPS : (int)cores;
    return groups < programs ? groups : programs;
}

/* The programs of group g of groups, when count are split between them in order: [*begin, *end). */
static void group_bounds(int g, int groups, int count, int *begin, int *end)
{
    *begin = g * count / groups;
    *end = (g + 1) * count / groups;
}

/* Appends to command (size bytes) like printf; the test fails when it outgrows them. */
static void append(char *command, size_t size, const char *format, ...)
{
    size_t used = strlen(command);
    va_list args;
    va_start(args, format);
    int length = vsnprintf(command + used, size - used, format, args);
    va_end(args);
    if (length < 0 || used + (size_t)length >= size)
        fail_msg("a command over %zu bytes: %.200s...", size, command);
}

/* Runs programs[order[0]] ... programs[order[count - 1]] into folder (runs/group.sh), in
 * group_count(count) groups at once, each group under one timeout of PROGRAM_TIMEOUT_SECONDS
 * (one timeout for each run would double the cost of a run). */
static void run_batch(const struct row *r, const char **programs, const int *order, int count,
                      const char *runs, const char *folder)
{
    assert_int_equal(mkdir(folder, 0755), 0);
    for (int k = 0; k < count; ++k) {
        char tmp[128], dir_png[160];
        snprintf(tmp, sizeof tmp, "%s/%d", folder, order[k]);
        snprintf(dir_png, sizeof dir_png, "%s/dir.png", tmp);
        assert_int_equal(mkdir(tmp, 0755), 0);
        assert_int_equal(mkdir(dir_png, 0755), 0);
    }
    static char command[TEST_COMMAND_BYTES];
    command[0] = '\0';
    int groups = group_count(count);
    for (int g = 0; g < groups; ++g) {
        int begin, end;
        group_bounds(g, groups, count, &begin, &end);
        append(command, sizeof command, "timeout -k 5 %d sh '%s/group.sh' '%s'",
               PROGRAM_TIMEOUT_SECONDS, runs, folder);
        for (int k = begin; k < end; ++k)
            append(command, sizeof command, " %d '%s'", order[k], programs[order[k]]);
        append(command, sizeof command, " &\n");
    }
    append(command, sizeof command, "wait\n");
    struct command_result *result = run_shell("%s", command);
    /* What a program's run says goes to its own files: anything here is the batch's own failure
     * (a file it could not write). */
    if (result->exit_code != 0 || result->err[0])
        fail_msg("%s: the shell running its programs failed (exit status %d): %.1000s", r->name,
                 result->exit_code, result->err);
}

/* The file folder/INDEX.SUFFIX that a run left, as a string ("" when missing). */
static void read_run_file(const char *folder, int index, const char *suffix, char *buffer,
                          size_t size)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%d.%s", folder, index, suffix);
    test_read_file(path, buffer, size);
}

/* 1 when program index's run in folder finished: its exit status is written, the rest before. */
static int run_finished(const char *folder, int index)
{
    char status[32];
    read_run_file(folder, index, "status", status, sizeof status);
    return isdigit((unsigned char)status[0]);
}

/* Runs the row against its count programs, with one shell for all of them (a program answers in
 * a few milliseconds; a shell, a temporary folder and its removal for each cost many times that),
 * into runs/0, then runs/1 ... (run_batch()); says in batch_of[i] which folder holds program i's
 * run. A group whose timeout stops it finishes in the next batch, from the program that was
 * running: only a program stopped while first in its group had the whole time to itself, and it
 * is left with no exit status, for check_program() to report. */
static void run_programs(const struct row *r, const char **programs, int count, const char *runs,
                         int *batch_of)
{
    write_group_script(r, runs);
    int order[2 * MAX_PROGRAMS + 2], pending = count;
    for (int i = 0; i < count; ++i)
        order[i] = i;
    for (int batch = 0; pending > 0; ++batch) {
        char folder[96];
        snprintf(folder, sizeof folder, "%s/%d", runs, batch);
        run_batch(r, programs, order, pending, runs, folder);
        int groups = group_count(pending), still_pending = 0;
        for (int g = 0; g < groups; ++g) {
            int begin, end, stopped = 0;
            group_bounds(g, groups, pending, &begin, &end);
            for (int k = begin; k < end; ++k) {
                int i = order[k];
                if (!stopped && run_finished(folder, i)) {
                    batch_of[i] = batch;
                } else if (!stopped && k == begin) {
                    batch_of[i] = batch;
                    stopped = 1;
                } else {
                    order[still_pending++] = i; /* never behind k: order is rewritten in place */
                    stopped = 1;
                }
            }
        }
        pending = still_pending;
    }
}

/* What is in folder besides the empty dir.png the test put there. */
static void leftovers_in(const char *folder, int top, char *found, size_t size)
{
    DIR *dir = opendir(folder);
    if (!dir)
        return;
    for (struct dirent *entry; (entry = readdir(dir));) {
        const char *n = entry->d_name;
        size_t used = strlen(found);
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        /* Inputs that a row's command makes for the program (tests/bad_inputs.tsv's header). */
        size_t length = strlen(n);
        if (top && length > 6 && strcmp(n + length - 6, ".scene") == 0)
            continue;
        if (top && strcmp(n, "dir.png") == 0) {
            char inside[PATH_MAX + 16];
            snprintf(inside, sizeof inside, "%s/dir.png", folder);
            leftovers_in(inside, 0, found, size);
            continue;
        }
        snprintf(found + used, size - used, " %s/%s", folder, n);
    }
    closedir(dir);
}

/* Checks what program index's run left in folder (run_programs()); prints what is wrong and
 * returns 1 when something is. */
static int check_program(const struct row *r, const char *program, const char *folder, int index,
                         int have_gpu)
{
    static char out[TEST_OUTPUT_BYTES], err[TEST_OUTPUT_BYTES];
    char status[32], partials[2048], tmp[128];
    read_run_file(folder, index, "status", status, sizeof status);
    read_run_file(folder, index, "out", out, sizeof out);
    read_run_file(folder, index, "err", err, sizeof err);
    read_run_file(folder, index, "partials", partials, sizeof partials);
    snprintf(tmp, sizeof tmp, "%s/%d", folder, index);
    const char *name = strrchr(program, '/') + 1;
    const char *expected =
        !have_gpu && r->expected_without_gpu ? r->expected_without_gpu : r->expected;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s: error: ", name);
    const char *newline = strchr(err, '\n');

    char problems[4096] = "";
#define PROBLEM(...)                                                                              \
    snprintf(problems + strlen(problems), sizeof problems - strlen(problems), __VA_ARGS__)
    if (!isdigit((unsigned char)status[0]))
        PROBLEM("  no exit status: still running after %d s, it was stopped\n",
                PROGRAM_TIMEOUT_SECONDS);
    else if (atoi(status) != r->status)
        PROBLEM("  exit status %d, expected %d\n", atoi(status), r->status);
    if (out[0])
        PROBLEM("  stdout is not empty\n");
    if (!newline || newline[1] != '\0')
        PROBLEM("  stderr is not exactly one line\n");
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        PROBLEM("  stderr does not start with '%s'\n", prefix);
    if (!strstr(err, expected))
        PROBLEM("  stderr does not contain '%s'\n", expected);
    /* Leftovers in its $TMP, and the *.partial-* files in the repository root after its run. */
    char found[2048] = "";
    leftovers_in(tmp, 1, found, sizeof found);
    snprintf(found + strlen(found), sizeof found - strlen(found), "%s", partials);
    if (found[0])
        PROBLEM("  left behind:%.1000s\n", found);
#undef PROBLEM
    if (!problems[0])
        return 0;
    char command[8192];
    program_command(r, program, tmp, command, sizeof command);
    print_error("%s:%d %s, %s:\n%s  command: %s\n  stderr: %.2000s  stdout: %.500s\n", TABLE_PATH,
                r->line, r->name, name, problems, command, err, out);
    return 1;
}

static void run_row(void **state)
{
    const struct row *r = *state;
    if (strstr(r->command, "ulimit -v") && UNDER_ADDRESS_SANITIZER) {
        /* AddressSanitizer reserves terabytes of address space for its shadow memory: under
         * ulimit -v the program cannot even start. The plain build checks this row. */
        print_message("skipped: ulimit -v under AddressSanitizer\n");
        skip();
    }
    const char *programs[2 * MAX_PROGRAMS + 2];
    char missing[512];
    int count = programs_of(r, programs, missing, sizeof missing);
    if (missing[0])
        print_message("# %s: not built here:%s\n", r->name, missing);
    if (count == 0) {
        print_message("skipped: none of its programs (%s) is built\n", r->programs);
        skip();
    }
    int have_gpu = 1;
    if (r->expected_without_gpu) {
        char reason[512];
        have_gpu = gpu_available(reason, sizeof reason);
    }
    char runs[64]; /* make_temporary_folder()'s, which the next call overwrites */
    snprintf(runs, sizeof runs, "%s", make_temporary_folder());
    int batch_of[2 * MAX_PROGRAMS + 2];
    run_programs(r, programs, count, runs, batch_of);
    int failures = 0;
    for (int i = 0; i < count; ++i) {
        char folder[96];
        snprintf(folder, sizeof folder, "%s/%d", runs, batch_of[i]);
        failures += check_program(r, programs[i], folder, i, have_gpu);
    }
    remove_temporary_folder(runs);
    if (failures)
        fail_msg("%d of %d programs answered '%s' wrongly", failures, count, r->name);
}

/* The table keeps its promise of coverage, and every file in tests/bad-scenes/ is used. */
static void table_covers_the_bad_scenes(void **state)
{
    (void)state;
    assert_true(row_count >= 30);
    glob_t scenes;
    assert_int_equal(glob(BAD_SCENES "/*", 0, NULL, &scenes), 0);
    int unused = 0;
    for (size_t i = 0; i < scenes.gl_pathc; ++i) {
        int used = 0;
        for (int j = 0; j < row_count && !used; ++j)
            used = strstr(rows[j].command, scenes.gl_pathv[i]) != NULL;
        if (!used) {
            print_error("%s is used by no row of %s\n", scenes.gl_pathv[i], TABLE_PATH);
            ++unused;
        }
    }
    globfree(&scenes);
    assert_int_equal(unused, 0);
    for (int i = 0; i < row_count; ++i)
        for (int j = 0; j < i; ++j)
            if (strcmp(rows[i].name, rows[j].name) == 0)
                fail_msg("%s: row name '%s' used twice", TABLE_PATH, rows[i].name);
}

/* The parser's own sphere limit, too large a file to keep in tests/bad-scenes/. */
static void scene_refuses_more_than_max_spheres(void **state)
{
    (void)state;
    const char *head = "size 64 64\ncamera 0 0 1\nbackground 0 0 0\nlight 1 1 1\n"
                       "light_colour 1 1 1\nambient 0.1\ndiffuse 0.7\nspecular 0.7\n";
    const char *sphere = "sphere 1 0 0 -5 1 1 1\n";
    size_t length = strlen(head) + (size_t)(SCENE_MAX_SPHERES + 1) * strlen(sphere);
    char *text = malloc(length + 1);
    assert_non_null(text);
    char *end = stpcpy(text, head);
    for (int i = 0; i < SCENE_MAX_SPHERES + 1; ++i)
        end = stpcpy(end, sphere);
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    /* Exactly the limit parses; one more is refused on its line. */
    assert_int_equal(scene_parse(text, length - strlen(sphere), "max", &scene, error,
                                 sizeof error),
                     0);
    assert_int_equal(scene.sphere_count, SCENE_MAX_SPHERES);
    scene_free(&scene);
    assert_int_equal(scene_parse(text, length, "max", &scene, error, sizeof error), -1);
    assert_non_null(strstr(error, "too many spheres (a scene holds at most 100000)"));
    assert_null(scene.spheres);
    free(text);
}

/* On a machine without a GPU a stage says so in one line, and where CUDA's own words ("driver
 * version is insufficient") would send a student to upgrade a driver that is not there, it says
 * which: no driver at all, or one older than the runtime. */
static void without_a_gpu_the_message_says_why(void **state)
{
    (void)state;
    char reason[512];
    if (gpu_available(reason, sizeof reason)) {
        print_message("# skipped: a GPU here\n");
        skip();
    }
    print_message("# %s\n", reason);
    assert_non_null(strstr(reason, "no CUDA-capable GPU found"));
    if (strstr(reason, "insufficient"))
        assert_true(strstr(reason, ": no NVIDIA driver is installed)") ||
                    strstr(reason, ": the driver supports CUDA "));
}

int main(void)
{
    if (!getcwd(repository, sizeof repository) || load_table() != 0)
        return 1;
    find_programs();
    static struct CMUnitTest tests[MAX_ROWS + 3];
    int n = 0;
    tests[n++] = (struct CMUnitTest){"table_covers_the_bad_scenes", table_covers_the_bad_scenes,
                                     NULL, NULL, NULL};
    tests[n++] = (struct CMUnitTest){"scene_refuses_more_than_max_spheres",
                                     scene_refuses_more_than_max_spheres, NULL, NULL, NULL};
    tests[n++] = (struct CMUnitTest){"without_a_gpu_the_message_says_why",
                                     without_a_gpu_the_message_says_why, NULL, NULL, NULL};
    for (int i = 0; i < row_count; ++i)
        tests[n++] = (struct CMUnitTest){rows[i].name, run_row, NULL, NULL, &rows[i]};
    return _cmocka_run_group_tests("bad_inputs", tests, (size_t)n, NULL, NULL);
}
