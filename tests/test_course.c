/* COURSE.md's commands exist and take the options it shows: every line of its ```sh blocks is
 * run from the repository root, in order, with the GPU hidden (CUDA_VISIBLE_DEVICES empty,
 * nvidia-smi replaced by `false`): a campaign or a profile inside a test would take long and
 * write results/. So a command passes when it succeeds, or when it stops with status 2 and one
 * of the "no GPU" messages (after parsing its options: a bad option is reported first), or, for
 * a command that reads an image a GPU-only command would have written, when that image is
 * missing. `make` goals other than diff and profile run as `make -n` (make test inside make test
 * would recurse). A line ending in "# fails: TEXT" must fail with TEXT on stderr. /tmp/ in a
 * command becomes a fresh folder. Run from the repository root. */
#include "test_support.h"

#define GUIDE "COURSE.md"
#define MAX_COMMANDS 256
#define CLEAN_ENV "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES"
#define NO_GPU_ENV "CUDA_VISIBLE_DEVICES= RUN_NVIDIA_SMI=false NVIDIA_SMI=false"

static const char *no_gpu_messages[] = {
    "no CUDA-capable GPU", "no NVIDIA GPU found", "profile: no GPU", "ncu (Nsight Compute) not found",
};

struct command {
    char text[1024];
    char expected_failure[256]; /* from "# fails: TEXT", or empty */
};

/* The commands of the guide's ```sh blocks, comments removed. */
static int read_commands(const char *path, struct command *commands, int max)
{
    static char guide[256 * 1024];
    test_read_file(path, guide, sizeof guide);
    int count = 0, in_block = 0;
    for (char *line = strtok(guide, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "```", 3) == 0) {
            in_block = !in_block && strcmp(line, "```sh") == 0;
            continue;
        }
        while (*line == ' ')
            line++;
        if (!in_block || *line == '\0' || *line == '#')
            continue;
        assert_true(count < max);
        struct command *c = &commands[count++];
        c->expected_failure[0] = '\0';
        char *comment = strstr(line, " #");
        if (comment) {
            const char *fails = strstr(comment, "# fails: ");
            if (fails)
                snprintf(c->expected_failure, sizeof c->expected_failure, "%s", fails + 9);
            *comment = '\0';
        }
        for (char *end = line + strlen(line); end > line && end[-1] == ' '; *--end = '\0')
            ;
        snprintf(c->text, sizeof c->text, "%s", line);
    }
    return count;
}

/* The command as run: /tmp/ moved into folder, build/ at the start of a word into the build
 * folder of this test run (build-sanitize/ under make SANITIZE=1 test), `make GOAL` as
 * `make -n GOAL` unless GOAL is diff or profile. */
static void as_run(const char *text, const char *folder, char *out, size_t size)
{
    char moved[2048] = "";
    assert_true(strlen(text) + 64 < sizeof moved);
    for (const char *p = text; *p;) {
        int word_start = p == text || p[-1] == ' ';
        if (strncmp(p, "/tmp/", 5) == 0) {
            snprintf(moved + strlen(moved), sizeof moved - strlen(moved), "%s/", folder);
            p += 5;
        } else if (word_start && strncmp(p, "build/", 6) == 0) {
            snprintf(moved + strlen(moved), sizeof moved - strlen(moved), "%s/", test_build_dir());
            p += 6;
        } else {
            size_t n = strlen(moved);
            moved[n] = *p++;
            moved[n + 1] = '\0';
        }
    }
    if (strncmp(moved, "make ", 5) == 0 && strncmp(moved, "make diff", 9) != 0 &&
        strncmp(moved, "make profile", 12) != 0)
        snprintf(out, size, "make -n %.2000s", moved + 5);
    else
        snprintf(out, size, "%.2040s", moved);
}

/* 1 when the result is what the guide promises; otherwise 0 and why. gpu_outputs holds the
 * --output files of commands that stopped for want of a GPU (a later command may read them). */
static int passes(const struct command *c, const struct command_result *r, const char *run,
                  const char *gpu_outputs, char *why, size_t size)
{
    if (c->expected_failure[0]) {
        if (r->exit_code != 0 && strstr(r->err, c->expected_failure))
            return 1;
        snprintf(why, size, "expected a failure with '%s'", c->expected_failure);
        return 0;
    }
    if (r->exit_code == 0)
        return 1;
    if (r->exit_code == 2)
        for (size_t k = 0; k < sizeof no_gpu_messages / sizeof *no_gpu_messages; k++)
            if (strstr(r->err, no_gpu_messages[k]))
                return 1;
    if (strstr(r->err, "cannot read image") || strstr(r->err, "cannot open image")) {
        char copy[2048];
        snprintf(copy, sizeof copy, "%s", run);
        for (char *word = strtok(copy, " "); word; word = strtok(NULL, " "))
            if (strstr(gpu_outputs, word) && strstr(word, "/"))
                return 1;
    }
    snprintf(why, size, "exit status %d, and no 'no GPU' message", r->exit_code);
    return 0;
}

static int has_parallel(void)
{
    return run_shell("command -v parallel")->exit_code == 0;
}

static void test_every_command_of_the_guide(void **state)
{
    (void)state;
    static struct command commands[MAX_COMMANDS];
    int count = read_commands(GUIDE, commands, MAX_COMMANDS);
    /* Eight sessions, each with a block or two: a guide that lost its blocks fails here. */
    assert_true(count >= 40);
    char *folder = make_temporary_folder();
    static char gpu_outputs[8192];
    gpu_outputs[0] = '\0';
    int failures = 0, skipped = 0;
    for (int i = 0; i < count; i++) {
        char run[2048], why[512];
        as_run(commands[i].text, folder, run, sizeof run);
        /* run.sh and sweep.sh install GNU parallel when run as root and it is missing: not here. */
        if ((strncmp(run, "./run.sh", 8) == 0 || strncmp(run, "tools/sweep.sh", 14) == 0) &&
            !has_parallel()) {
            print_message("# skipped (no GNU parallel here): %s\n", commands[i].text);
            skipped++;
            continue;
        }
        /* RUN_BIN_DIR: run.sh and sweep.sh look for the stages where this test run built them. */
        struct command_result *r =
            run_shell(CLEAN_ENV " " NO_GPU_ENV " RUN_BIN_DIR=%s %s", test_build_dir(), run);
        if (!passes(&commands[i], r, run, gpu_outputs, why, sizeof why)) {
            print_error("COURSE.md: `%s`: %s; stderr: %.400s\n", commands[i].text, why, r->err);
            failures++;
        } else if (r->exit_code != 0) {
            const char *output = strstr(run, "--output ");
            if (output)
                snprintf(gpu_outputs + strlen(gpu_outputs), sizeof gpu_outputs - strlen(gpu_outputs),
                         "%.*s\n", (int)strcspn(output + 9, " "), output + 9);
        }
    }
    print_message("# %d commands of COURSE.md checked, %d skipped\n", count - skipped, skipped);
    remove_temporary_folder(folder);
    assert_int_equal(failures, 0);
}

/* The checker itself: a bad option is not mistaken for "no GPU", and "# fails:" is held. */
static void test_the_checker_rejects_what_it_should(void **state)
{
    (void)state;
    struct command c = {"build/01-base --bogus", ""};
    char why[512], run[2048];
    as_run(c.text, "/x", run, sizeof run);
    struct command_result *r = run_shell(CLEAN_ENV " " NO_GPU_ENV " %s", run);
    assert_int_equal(r->exit_code, 2);
    assert_false(passes(&c, r, run, "", why, sizeof why));
    struct command d = {"build/01-base --scene scenes/quick.scene", "this text is not in the error"};
    as_run(d.text, "/x", run, sizeof run);
    r = run_shell(CLEAN_ENV " " NO_GPU_ENV " %s", run);
    assert_false(passes(&d, r, run, "", why, sizeof why));
    as_run("make test", "/x", run, sizeof run);
    assert_string_equal(run, "make -n test");
    as_run("make diff STAGE=02", "/x", run, sizeof run);
    assert_string_equal(run, "make diff STAGE=02");
    as_run("build/cpu-reference --output /tmp/a.png", "/x", run, sizeof run);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/cpu-reference --output /x/a.png", test_build_dir());
    assert_string_equal(run, expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command_of_the_guide),
        cmocka_unit_test(test_the_checker_rejects_what_it_should),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
