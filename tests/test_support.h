/* The one helper layer of the cmocka tests (tests/test_*.c), in these sections:
 *   running commands     run_shell(), the one way a test runs a shell command, and what is built
 *                        on it: sh(), sh_num(), a make of its own, tools a test needs
 *   files and folders    reading and writing a file, a temporary folder
 *   problems             what a check of a record found, a line each
 *   made-up stage trees  a stage folder with its manifest (and a render.cu), the stage list
 *   the GPU              the stages built here, whether a GPU is here (and must work: a GPU
 *                        shown here, or REQUIRE_GPU=1, fails a test that finds none working
 *                        instead of skipping it), a stage's --csv report
 *   runs at once         a batch of independent commands (each stage on a scene) run
 *                        TEST_GPU_JOBS at a time, their results read back in the order given
 *   images and vectors   how many pixels two images differ in, a vector's three values
 * Include it first; a test run from the repository root. */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "image/image.h"
#include "raytrace/spec_trace.h"

static inline void test_read_file(const char *path, char *buffer, size_t size);

/* ---- Running commands ---------------------------------------------------------------------- */

#define TEST_OUTPUT_BYTES (256 * 1024) /* what a command's stdout (or stderr) keeps */
#define TEST_COMMAND_BYTES (32 * 1024) /* the longest command; a longer one fails the test */

struct command_result {
    int exit_code; /* 128 + signal when killed by one */
    char out[TEST_OUTPUT_BYTES];
    char err[TEST_OUTPUT_BYTES];
};

/* Runs the command built like printf from format and args through /bin/sh, with stdout and
 * stderr captured (to files, so a command left running in the background cannot hold the test
 * up), into result. The one implementation: run_shell() and the helpers below go through it. */
static inline struct command_result *run_shell_into(struct command_result *result, const char *format,
                                                    va_list args)
{
    static char command[TEST_COMMAND_BYTES];
    int length = vsnprintf(command, sizeof command, format, args);
    if (length < 0 || (size_t)length >= sizeof command)
        fail_msg("a command of %d bytes, over TEST_COMMAND_BYTES: %.200s...", length, command);
    char out_path[] = "/tmp/rt-test-out-XXXXXX", err_path[] = "/tmp/rt-test-err-XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    close(out_fd);
    close(err_fd);
    result->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    test_read_file(out_path, result->out, sizeof result->out);
    test_read_file(err_path, result->err, sizeof result->err);
    unlink(out_path);
    unlink(err_path);
    return result;
}

/* Runs a command built like printf through /bin/sh, with stdout and stderr captured. The result
 * is one static buffer that the next run_shell() call (sh() and sh_num() too) overwrites: to walk
 * a command's lines while running others, copy its out first. */
static inline struct command_result *run_shell(const char *format, ...)
{
    static struct command_result result;
    va_list args;
    va_start(args, format);
    run_shell_into(&result, format, args);
    va_end(args);
    return &result;
}

/* run_shell() for the helpers of this file that run commands themselves (a temporary folder's
 * removal, a made-up stage, the stage list, the GPU and tools checks): a buffer of their own, so
 * that calling them leaves what the test's last run_shell() returned as it was. */
static inline struct command_result *helper_shell(const char *format, ...)
{
    static struct command_result result;
    va_list args;
    va_start(args, format);
    run_shell_into(&result, format, args);
    va_end(args);
    return &result;
}

/* The exit status of a command built like printf (run_shell(); 128 + signal when killed by one);
 * what it prints is passed on to the test's stdout and stderr. */
static inline int sh(const char *format, ...)
{
    static char command[TEST_COMMAND_BYTES];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(command, sizeof command, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof command)
        fail_msg("a command of %d bytes, over TEST_COMMAND_BYTES: %.200s...", length, command);
    struct command_result *r = run_shell("%s", command);
    fputs(r->out, stdout);
    fputs(r->err, stderr);
    return r->exit_code;
}

/* The number a command built like printf prints first on stdout (run_shell()), or -1 when it
 * prints none; what it prints on stderr is passed on to the test's. */
static inline long sh_num(const char *format, ...)
{
    static char command[TEST_COMMAND_BYTES];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(command, sizeof command, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof command)
        fail_msg("a command of %d bytes, over TEST_COMMAND_BYTES: %.200s...", length, command);
    struct command_result *r = run_shell("%s", command);
    fputs(r->err, stderr);
    long value;
    return sscanf(r->out, "%ld", &value) == 1 ? value : -1;
}

/* A make of its own, not a part of the `make test` that runs the test (no inherited flags or
 * jobs): CLEAN_ENV before a command that runs make, MAKE for make itself. */
#define CLEAN_ENV "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES"
#define MAKE CLEAN_ENV " make"

/* The first of count tools (commands, looked up with `command -v`) that this machine lacks, or
 * NULL when it has them all. */
static inline const char *missing_tool_among(const char *const *tools, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (helper_shell("command -v '%s'", tools[i])->exit_code != 0)
            return tools[i];
    return NULL;
}

/* Skips the test, saying why, when missing (a tool from missing_tool_among()) is not NULL. */
#define SKIP_WITHOUT_TOOL(missing)                                                                \
    do {                                                                                          \
        if (missing) {                                                                            \
            print_message("# skipped: %s is not installed\n", (missing));                         \
            skip();                                                                               \
        }                                                                                         \
    } while (0)

/* 1 when GNU parallel is installed (./run.sh and tools/sweep.sh install it when run as root and
 * it is missing, which a test does not do). */
static inline int has_parallel(void)
{
    return helper_shell("command -v parallel")->exit_code == 0;
}

/* The next line of the text at *cursor, its newline replaced by '\0', with *cursor moved past
 * it; NULL at the end of the text. Empty lines are lines. To walk a command's captured out in
 * place (copy it first if other commands run while walking). */
static inline char *next_line(char **cursor)
{
    char *line = *cursor;
    if (!*line)
        return NULL;
    char *end = line + strcspn(line, "\n");
    *cursor = *end ? end + 1 : end;
    *end = '\0';
    return line;
}

/* The number of newlines in text: its lines when each ends with one. */
static inline int line_count(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    return lines;
}

/* ---- Files and folders --------------------------------------------------------------------- */

/* The start of the file at path (at most size - 1 bytes) as a string; "" when it cannot be read. */
static inline void test_read_file(const char *path, char *buffer, size_t size)
{
    FILE *file = fopen(path, "rb");
    size_t length = file ? fread(buffer, 1, size - 1, file) : 0;
    buffer[length] = '\0';
    if (file)
        fclose(file);
}

/* Writes text to path, replacing it; the test fails when it cannot. */
static inline void test_write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fputs(text, file) >= 0, 1);
    assert_int_equal(fclose(file), 0);
}

/* A fresh folder under /tmp, removed by remove_temporary_folder; the name is a static buffer,
 * which the next call overwrites. */
static inline char *make_temporary_folder(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/rt-test-XXXXXX");
    assert_non_null(mkdtemp(path));
    return path;
}

static inline void remove_temporary_folder(const char *path)
{
    assert_int_equal(helper_shell("rm -rf '%s'", path)->exit_code, 0);
}

/* ---- Problems: what a check of a record found, a line each ------------------------------- */

/* The problems a check found: their count, and the first PROBLEMS_SHOWN of them, a line each
 * (cmocka's failure message holds a thousand characters: print_problems prints them first). */
#define PROBLEMS_SHOWN 200
struct problems {
    int count;
    char text[65536];
};

static inline void add_problem(struct problems *problems, const char *format, ...)
{
    problems->count++;
    size_t used = strlen(problems->text);
    if (problems->count > PROBLEMS_SHOWN) {
        if (problems->count == PROBLEMS_SHOWN + 1)
            snprintf(problems->text + used, sizeof problems->text - used, "... and more\n");
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(problems->text + used, sizeof problems->text - used, format, args);
    va_end(args);
    used = strlen(problems->text);
    snprintf(problems->text + used, sizeof problems->text - used, "\n");
}

/* Each problem on a line of its own, after "# " and, when path is not NULL, "PATH: ". */
static inline void print_problems(const char *path, const struct problems *problems)
{
    for (const char *line = problems->text; *line;) {
        size_t n = strcspn(line, "\n");
        print_message("# %s%s%.*s\n", path ? path : "", path ? ": " : "", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* ---- Made-up stage trees ------------------------------------------------------------------- */

/* A made-up stage folder STAGES/NAME (STAGES: a folder of stage folders, as STAGES_DIR names one;
 * made when missing) whose manifest is exactly the text manifest, in place of one that is there;
 * with_render_cu: a render.cu too, one comment line naming the stage (what tools/stage-diff.sh
 * and make compare and build). */
static inline void make_stage(const char *stages, const char *name, const char *manifest, int with_render_cu)
{
    char path[4096];
    assert_int_equal(helper_shell("mkdir -p '%s/%s'", stages, name)->exit_code, 0);
    snprintf(path, sizeof path, "%s/%s/manifest", stages, name);
    test_write_file(path, manifest);
    if (with_render_cu) {
        char source[512];
        snprintf(source, sizeof source, "// %s\n", name);
        snprintf(path, sizeof path, "%s/%s/render.cu", stages, name);
        test_write_file(path, source);
    }
}

/* make_stage() with a made-up stage's manifest: a comment, the lines every stage needs (lesson
 * "the fake NAME", builds-on BUILDS_ON, chapter CHAPTER, or when NULL "Fake" and, for a
 * path-tracing stage (pNN-name), "P. Fake path tracing"), "estimator: path" for a path-tracing
 * stage unless EXTRA names one, then EXTRA (more "key: value" lines, or NULL). */
static inline void make_fake_stage(const char *stages, const char *name, const char *builds_on, const char *chapter,
                                   const char *extra, int with_render_cu)
{
    static char manifest[8192];
    const int pt = name[0] == 'p';
    snprintf(manifest, sizeof manifest,
             "# %s: a made-up stage of the tests\nlesson: the fake %s\nbuilds-on: %s\nchapter: %s\n%s", name, name,
             builds_on, chapter ? chapter : pt ? "P. Fake path tracing" : "Fake",
             pt && !(extra && strstr(extra, "estimator:")) ? "estimator: path\n" : "");
    if (extra && *extra) {
        size_t used = strlen(manifest);
        snprintf(manifest + used, sizeof manifest - used, "%s%s", extra, extra[strlen(extra) - 1] == '\n' ? "" : "\n");
    }
    make_stage(stages, name, manifest, with_render_cu);
}

#define STAGE_LIST_MAX 128

/* The stages, in course order (`tools/stages list`), and which are of the path-tracing track. */
struct stage_list {
    int count;
    char names[STAGE_LIST_MAX][128];
    int pt[STAGE_LIST_MAX]; /* 1 for a stage of the path-tracing track (`tools/stages list pt`) */
};

/* Fills list with the stage folders of stages_dir (NULL: the repository's, or STAGES_DIR's when
 * set); the test fails when tools/stages does or when there is none. */
static inline void list_stages(const char *stages_dir, struct stage_list *list)
{
    char prefix[512] = "";
    if (stages_dir)
        snprintf(prefix, sizeof prefix, "STAGES_DIR='%s' ", stages_dir);
    struct command_result *r = helper_shell("%stools/stages list", prefix);
    if (r->exit_code != 0)
        fail_msg("tools/stages list: %s", r->err);
    memset(list, 0, sizeof *list);
    char *cursor = r->out;
    for (char *name; (name = next_line(&cursor));) {
        if (!*name)
            continue;
        assert_true(list->count < STAGE_LIST_MAX && strlen(name) < sizeof list->names[0]);
        snprintf(list->names[list->count++], sizeof list->names[0], "%s", name);
    }
    assert_true(list->count > 0);
    r = helper_shell("%stools/stages list pt", prefix);
    if (r->exit_code != 0)
        fail_msg("tools/stages list pt: %s", r->err);
    cursor = r->out;
    for (char *name; (name = next_line(&cursor));)
        for (int k = 0; k < list->count; k++)
            if (strcmp(list->names[k], name) == 0)
                list->pt[k] = 1;
}

/* ---- The GPU ------------------------------------------------------------------------------- */

/* Where the programs were built: $BUILD, or build. */
static inline const char *test_build_dir(void)
{
    const char *build = getenv("BUILD");
    return build && *build ? build : "build";
}

/* The name of a stage program (or stage folder) at path: what follows its last '/'. */
static inline const char *stage_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A stage's number from its program's path or its name, after the path-tracing track's 'p': 7
 * for build/07c-unified-memory, 5 for p05a-split-channels. */
static inline int stage_number(const char *path)
{
    const char *name = stage_name(path);
    return atoi(name[0] == 'p' ? name + 1 : name);
}

static inline int test_compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The stage programs built here (test_build_dir()/PATTERN for each of count glob patterns, such
 * as "[0-9][0-9]-*"), at most max, into paths, sorted by name (01-base first, 07-shared-spheres
 * before 07a-...): executables with no '.' in their names (not build/01-base.resources.txt) and
 * not a kernel benchmark (build/p01-base-bench). Returns how many. */
static inline int find_built_stages(const char *const *patterns, int count, char (*paths)[256], int max)
{
    int found = 0;
    for (int p = 0; p < count; ++p) {
        char pattern[512];
        snprintf(pattern, sizeof pattern, "%s/%s", test_build_dir(), patterns[p]);
        glob_t matches;
        if (glob(pattern, 0, NULL, &matches) != 0)
            continue;
        for (size_t k = 0; k < matches.gl_pathc && found < max; ++k) {
            const char *path = matches.gl_pathv[k], *name = stage_name(path);
            size_t length = strlen(name);
            if (!strchr(name, '.') && !(length > 6 && strcmp(name + length - 6, "-bench") == 0) &&
                access(path, X_OK) == 0)
                snprintf(paths[found++], 256, "%s", path);
        }
        globfree(&matches);
    }
    qsort(paths, (size_t)found, sizeof paths[0], test_compare_names);
    return found;
}

/* 1 when this machine shows an NVIDIA GPU, whether or not it works, with what shows it in what
 * ("/dev/nvidia0", or nvidia-smi -L's first line): a device file matching TEST_NVIDIA_DEVICES (a
 * glob; default /dev/nvidia[0-9]*, the files the driver makes for each GPU), or a GPU that
 * $NVIDIA_SMI -L (default nvidia-smi) lists. CUDA_VISIBLE_DEVICES set but empty hides them on
 * purpose: then none is shown. A machine without a GPU (CI) has neither, and shows none. */
static inline int gpu_shown(char *what, size_t size)
{
    static int known = 0, shown = 0;
    static char found[512];
    if (!known) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        const char *devices = getenv("TEST_NVIDIA_DEVICES");
        const char *smi = getenv("NVIDIA_SMI");
        glob_t matches;
        if (visible && !*visible) {
            shown = 0;
        } else if (glob(devices && *devices ? devices : "/dev/nvidia[0-9]*", 0, NULL, &matches) == 0) {
            snprintf(found, sizeof found, "%.500s", matches.gl_pathv[0]);
            globfree(&matches);
            shown = 1;
        } else {
            struct command_result *r = helper_shell("%s -L", smi && *smi ? smi : "nvidia-smi");
            shown = r->exit_code == 0 && strncmp(r->out, "GPU ", 4) == 0;
            if (shown)
                snprintf(found, sizeof found, "nvidia-smi -L: %.480s", r->out);
            found[strcspn(found, "\n")] = '\0';
        }
        known = 1;
    }
    snprintf(what, size, "%.*s", (int)(size > 1 ? size - 1 : 0), shown ? found : "");
    return shown;
}

/* 1 when a test that finds no working GPU must fail rather than skip, with the first half of its
 * message in why: REQUIRE_GPU set in the environment (to anything but 0: a GPU machine's CI, where
 * a broken driver must not end green with skips), or a GPU shown here (gpu_shown()) that does not
 * work. On a machine without a GPU and without REQUIRE_GPU, 0: the test skips. */
static inline int gpu_required(char *why, size_t size)
{
    const char *require = getenv("REQUIRE_GPU");
    char shown[512];
    if (require && *require && strcmp(require, "0") != 0)
        snprintf(why, size, "REQUIRE_GPU=%.100s", require);
    else if (gpu_shown(shown, sizeof shown))
        snprintf(why, size, "an NVIDIA GPU is here (%.400s)", shown);
    else
        return 0;
    return 1;
}

/* 1 when a stage can reach a GPU here; otherwise 0 and why in reason (build/01-base's first line
 * on stderr). Any failure of build/01-base reads as "no GPU" only on a machine that shows none and
 * with REQUIRE_GPU unset; otherwise the test that asked fails, in one line (gpu_required()). */
static inline int gpu_available(char *reason, size_t size)
{
    static int known = 0, available = 0;
    static char why[512];
    if (!known) {
        struct command_result *r =
            helper_shell("%s/01-base --scene scenes/quick.scene --size 16x16", test_build_dir());
        available = r->exit_code == 0;
        snprintf(why, sizeof why, "%.500s", r->err);
        why[strcspn(why, "\n")] = '\0';
        if (!available && !*why)
            snprintf(why, sizeof why, "exit status %d", r->exit_code);
        known = 1;
    }
    snprintf(reason, size, "%.*s", (int)(size > 1 ? size - 1 : 0), why);
    char required[512];
    if (!available && gpu_required(required, sizeof required))
        fail_msg("%s but %s/01-base failed: %s", required, test_build_dir(), why);
    return available;
}

/* For a GPU test that a tool it runs skips (tools/difftest.sh's "no NVIDIA GPU here", status 77):
 * skips the test, saying why (what, one line), on a machine where a GPU test may skip; fails it
 * instead, in one line, where gpu_required() (REQUIRE_GPU=1, or a GPU shown here). */
static inline void skip_without_gpu(const char *what)
{
    char required[512];
    if (gpu_required(required, sizeof required))
        fail_msg("%s but the test would skip: %s", required, what);
    print_message("# skipped: %s\n", what);
    skip();
}

#define SKIP_WITHOUT_GPU()                                                                        \
    do {                                                                                          \
        char skip_reason_[512];                                                                   \
        if (!gpu_available(skip_reason_, sizeof skip_reason_)) {                                  \
            print_message("# skipped: no GPU here (%s)\n", skip_reason_);                         \
            skip();                                                                               \
        }                                                                                         \
    } while (0)

/* The value of one metric in a stage's --csv report (the line's ",NAME,VALUE" columns); the test
 * fails, showing the report, when it has no such metric. */
static inline double csv_metric(const char *csv, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    const char *at = strstr(csv, key);
    if (!at)
        fail_msg("metric %s missing from:\n%.2000s", name, csv);
    return strtod(at + strlen(key), NULL);
}

/* ---- Runs at once -------------------------------------------------------------------------- */

/* A GPU test runs the stages many times, each run a render of a fraction of a second inside a
 * process whose CUDA start-up, file writing and exit take longer: one after another, a few hundred
 * runs took minutes. Runs that do not depend on each other (every stage on a scene) go in a batch:
 * batch_add() collects their commands, batch_run() runs them TEST_GPU_JOBS at a time (xargs -P),
 * each command's stdout, stderr and exit status into files of its own, and batch_result() gives
 * them back one at a time in the order they were added, so that a test checks them and prints
 * its lines in stage order, with the messages it had when it ran them one at a time. */

#define TEST_GPU_JOBS_MAX 16 /* more at once than this only queue up on one GPU */
#define BATCH_MAX 1024       /* the most commands one batch holds */

/* How many commands a batch runs at once: TEST_GPU_JOBS (a positive number; above
 * TEST_GPU_JOBS_MAX, that), else the cores (nproc), at most TEST_GPU_JOBS_MAX. A TEST_GPU_JOBS
 * that is not a positive number fails the test, rather than be read as some default. */
static inline int test_gpu_jobs(void)
{
    static long cores = 0;
    const char *set = getenv("TEST_GPU_JOBS");
    long jobs;
    if (set && *set) {
        char *end;
        jobs = strtol(set, &end, 10);
        if (*end || jobs < 1)
            fail_msg("TEST_GPU_JOBS must be a positive number, got '%.100s'", set);
    } else {
        if (!cores) {
            struct command_result *r = helper_shell("nproc");
            if (r->exit_code != 0 || sscanf(r->out, "%ld", &cores) != 1 || cores < 1)
                cores = 1;
        }
        jobs = cores;
    }
    return jobs > TEST_GPU_JOBS_MAX ? TEST_GPU_JOBS_MAX : (int)jobs;
}

/* Commands to run at once, and where each one's files go: FOLDER/K.sh (the command), K.out,
 * K.err and K.status for the Kth added (from 0), so a command may name its own output files
 * after K as well (FOLDER/K.ppm). */
struct batch {
    char folder[512];
    int count;
};

/* An empty batch whose files go in PARENT/NAME (emptied when it was there). */
static inline void batch_begin(struct batch *batch, const char *parent, const char *name)
{
    snprintf(batch->folder, sizeof batch->folder, "%s/%s", parent, name);
    batch->count = 0;
    struct command_result *r = helper_shell("rm -rf '%s' && mkdir -p '%s'", batch->folder, batch->folder);
    if (r->exit_code != 0)
        fail_msg("cannot make the batch folder %s: %s", batch->folder, r->err);
}

/* Adds a command built like printf, run by /bin/sh from the folder the test runs in (the
 * repository root), as run_shell() runs one; returns its number K. */
static inline int batch_add(struct batch *batch, const char *format, ...)
{
    static char command[TEST_COMMAND_BYTES];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(command, sizeof command, format, args);
    va_end(args);
    if (length < 0 || (size_t)length + 1 >= sizeof command)
        fail_msg("a command of %d bytes, over TEST_COMMAND_BYTES: %.200s...", length, command);
    if (batch->count >= BATCH_MAX)
        fail_msg("more than BATCH_MAX (%d) commands in the batch %s", BATCH_MAX, batch->folder);
    strcat(command, "\n");
    char path[600];
    snprintf(path, sizeof path, "%s/%d.sh", batch->folder, batch->count);
    test_write_file(path, command);
    return batch->count++;
}

/* Runs every command of the batch, test_gpu_jobs() at a time, and returns when all have ended.
 * Their stdin is /dev/null; what each prints and its exit status are kept for batch_result(). */
static inline void batch_run(const struct batch *batch)
{
    if (batch->count == 0)
        return;
    const int jobs = test_gpu_jobs();
    /* (The status is written after the command ends, by a shell of its own: a command that dies,
     * or kills the shell that runs it, still leaves one, 128 + the signal, as run_shell() reports
     * it.) */
    helper_shell("seq 0 %d | xargs -n 1 -P %d sh -c "
                 "'sh \"$0/$1.sh\" >\"$0/$1.out\" 2>\"$0/$1.err\" </dev/null; echo $? >\"$0/$1.status\"' '%s'",
                 batch->count - 1, jobs, batch->folder);
}

/* The result of the batch's command K, as run_shell() would have returned it: one static buffer
 * that the next batch_result() call overwrites (not run_shell()'s, which it leaves as it was). A
 * command that left no exit status (its run cut short) reads as exit status -1, saying so. */
static inline struct command_result *batch_result(const struct batch *batch, int k)
{
    static struct command_result result;
    char path[600], status[32];
    assert_true(k >= 0 && k < batch->count);
    snprintf(path, sizeof path, "%s/%d.out", batch->folder, k);
    test_read_file(path, result.out, sizeof result.out);
    snprintf(path, sizeof path, "%s/%d.err", batch->folder, k);
    test_read_file(path, result.err, sizeof result.err);
    snprintf(path, sizeof path, "%s/%d.status", batch->folder, k);
    test_read_file(path, status, sizeof status);
    if (sscanf(status, "%d", &result.exit_code) != 1) {
        result.exit_code = -1;
        snprintf(result.err, sizeof result.err, "command %d of the batch %s left no exit status\n", k,
                 batch->folder);
    }
    return &result;
}

/* ---- Images and vectors -------------------------------------------------------------------- */

/* How many pixels image differs from expected in (the two the same size); when some do, says how
 * many and by how much, after "what: " (a stage's name, or NULL). */
static inline long long differing_pixels(const char *what, const struct image *expected, const struct image *image)
{
    struct image_difference diff;
    assert_int_equal(image_compare(expected, image, &diff), 0);
    if (diff.differing_pixels)
        print_message("# %s%s%lld of %lld pixels differ (largest channel difference %d)\n", what ? what : "",
                      what ? ": " : "", diff.differing_pixels, diff.total_pixels, diff.largest_channel_difference);
    return diff.differing_pixels;
}

/* 1 when v is exactly (x, y, z). */
static inline int vec3_is(struct spec_vec3 v, float x, float y, float z)
{
    return v.x == x && v.y == y && v.z == z;
}

#endif
