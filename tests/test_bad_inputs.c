/* Every bad input answered: runs each row of tests/bad_inputs.tsv (see its header) against every
 * program it applies to (the main chain's stages build/NN-* and build/cpu-reference, the
 * path-tracing track's stages build/pNN-* and build/pt-reference), and checks that the program
 * exits with the status given, prints nothing on stdout and exactly one line "NAME: error: ..."
 * on stderr holding the expected text, and leaves no output file and no *.partial-* file behind.
 * Input errors are found before the GPU is touched, so this passes with and without a GPU (the
 * rows that reach the GPU say what they expect without one). Run from the repository root. */
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
#define MAX_PROGRAMS 64
#define ROW_TIMEOUT_SECONDS 60

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
 * stages included: 07 is 07 and 07a ... 07f) or, with '+', that number and later, or pNNx one
 * side stage by its whole name up to the '-'. 0 when none is built here. */
static int select_by_number(const char *token, char **list, int count, int *selected)
{
    const char *digits = token[0] == 'p' ? token + 1 : token;
    size_t length = strlen(digits);
    int number = atoi(digits), and_later = length && digits[length - 1] == '+';
    int side = length == 3 && isalpha((unsigned char)digits[2]), any = 0;
    for (int i = 0; i < count; ++i) {
        const char *name = strrchr(list[i], '/') + 1;
        int n = stage_number(list[i]);
        int match = side ? strncmp(name, token, strlen(token)) == 0 && name[strlen(token)] == '-'
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
                     "ptref, pNN, pNN+)",
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

/* The shell command: the row's words after the program (or as written when they name
 * $PROGRAM), with --output $TMP/out.png added unless the row chooses its own output. */
static void build_command(const struct row *r, const char *program, const char *tmp,
                          char *command, size_t size)
{
    char words[2048];
    const char *with_output = strstr(r->command, "--output") ? "" : " --output \"$TMP/out.png\"";
    const char *at = strstr(r->command, "$PROGRAM");
    if (at)
        snprintf(words, sizeof words, "%.*s$PROGRAM%s%s", (int)(at - r->command), r->command,
                 with_output, at + strlen("$PROGRAM"));
    else
        snprintf(words, sizeof words, "$PROGRAM%s %s", with_output, r->command);
    snprintf(command, size, "cd '%s' && TMP='%s' && PROGRAM='timeout -k 5 %d %s' && %s",
             repository, tmp, ROW_TIMEOUT_SECONDS, program, words);
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

/* Leftovers in the row's folder, and *.partial-* files in the repository root. */
static int leftovers(const char *folder, char *found, size_t size)
{
    found[0] = '\0';
    leftovers_in(folder, 1, found, size);
    glob_t partial;
    char pattern[PATH_MAX + 16];
    snprintf(pattern, sizeof pattern, "%s/*.partial-*", repository);
    if (glob(pattern, 0, NULL, &partial) == 0) {
        for (size_t i = 0; i < partial.gl_pathc; ++i)
            snprintf(found + strlen(found), size - strlen(found), " %s", partial.gl_pathv[i]);
        globfree(&partial);
    }
    return found[0] != '\0';
}

/* Runs one row against one program; prints what is wrong and returns 1 when something is. */
static int check_program(const struct row *r, const char *program, int have_gpu)
{
    char *tmp = make_temporary_folder();
    char dir_png[PATH_MAX], command[8192];
    snprintf(dir_png, sizeof dir_png, "%s/dir.png", tmp);
    assert_int_equal(mkdir(dir_png, 0755), 0);
    build_command(r, program, tmp, command, sizeof command);

    struct command_result *result = run_shell("%s", command);
    const char *name = strrchr(program, '/') + 1;
    const char *expected =
        !have_gpu && r->expected_without_gpu ? r->expected_without_gpu : r->expected;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s: error: ", name);
    const char *newline = strchr(result->err, '\n');

    char problems[4096] = "";
#define PROBLEM(...)                                                                              \
    snprintf(problems + strlen(problems), sizeof problems - strlen(problems), __VA_ARGS__)
    if (result->exit_code != r->status)
        PROBLEM("  exit status %d, expected %d\n", result->exit_code, r->status);
    if (result->out[0])
        PROBLEM("  stdout is not empty\n");
    if (!newline || newline[1] != '\0')
        PROBLEM("  stderr is not exactly one line\n");
    if (strncmp(result->err, prefix, strlen(prefix)) != 0)
        PROBLEM("  stderr does not start with '%s'\n", prefix);
    if (!strstr(result->err, expected))
        PROBLEM("  stderr does not contain '%s'\n", expected);
    char found[2048];
    if (leftovers(tmp, found, sizeof found))
        PROBLEM("  left behind:%.1000s\n", found);
#undef PROBLEM
    remove_temporary_folder(tmp);
    if (!problems[0])
        return 0;
    print_error("%s:%d %s, %s:\n%s  command: %s\n  stderr: %.2000s  stdout: %.500s\n", TABLE_PATH,
                r->line, r->name, name, problems, command, result->err, result->out);
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
    int failures = 0;
    for (int i = 0; i < count; ++i)
        failures += check_program(r, programs[i], have_gpu);
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
