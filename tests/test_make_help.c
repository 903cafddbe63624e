/* `make help`: it works without nvcc (and without stb), it prints the Makefile's header comment,
 * every goal it names is one make knows (make -n GOAL succeeds), every .PHONY goal of the
 * Makefile is named in it, and every variable it names is one the Makefile uses. No GPU needed.
 * Run from the repository root. */
#include "test_support.h"

#include <ctype.h>

static char help[TEST_OUTPUT_BYTES];

static void read_help(void)
{
    /* No nvcc on this PATH (/usr/local/cuda/bin left out), nor by the name make looks for. */
    struct command_result *r = run_shell("PATH=/usr/bin:/bin " MAKE " help NVCC=no-nvcc-here "
                                         "STB_INCLUDE_DIR=/nonexistent");
    if (r->exit_code != 0)
        fail_msg("make help without nvcc: exit status %d; stderr: %s", r->exit_code, r->err);
    assert_string_equal(r->err, "");
    snprintf(help, sizeof help, "%s", r->out);
}

static void help_works_without_nvcc(void **state)
{
    (void)state;
    read_help();
    assert_non_null(strstr(help, "\n  make test "));
    assert_non_null(strstr(help, "\n  make help "));
    assert_non_null(strstr(help, "CUDA_ARCH="));
    /* The header comment, without its '#'s. */
    assert_null(strstr(help, "\n#"));
    assert_int_equal(strncmp(help, "Builds every stage", 18), 0);
    /* The other goals still stop at once without nvcc. */
    struct command_result *r = run_shell("PATH=/usr/bin:/bin " MAKE " -n all NVCC=no-nvcc-here");
    assert_int_not_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "nvcc not found"));
}

/* Each "  make GOAL [VAR=value...]" line of the help, up to two spaces, as make -n runs it. */
static void every_goal_it_names_exists(void **state)
{
    (void)state;
    read_help();
    static char copy[TEST_OUTPUT_BYTES];
    snprintf(copy, sizeof copy, "%s", help);
    int checked = 0;
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "  make", 6) != 0 || (line[6] != ' ' && line[6] != '\0'))
            continue;
        char *end = strstr(line + 6, "  ");
        if (end)
            *end = '\0';
        struct command_result *r = run_shell(MAKE " -n %s CUDA_ARCH=75", line + 6);
        if (r->exit_code != 0)
            fail_msg("`make%s` from make help: make -n fails (status %d): %.400s", line + 6,
                     r->exit_code, r->err);
        checked++;
    }
    assert_true(checked >= 9);
}

/* Every goal of the Makefile's .PHONY lines appears in the help as "make GOAL". */
static void every_phony_goal_is_named(void **state)
{
    (void)state;
    read_help();
    static char makefile[256 * 1024];
    test_read_file("Makefile", makefile, sizeof makefile);
    int goals = 0;
    for (char *line = strtok(makefile, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, ".PHONY:", 7) != 0)
            continue;
        char *rest = line + 7;
        for (char *goal = strtok_r(rest, " ", &rest); goal; goal = strtok_r(NULL, " ", &rest)) {
            char named[128];
            snprintf(named, sizeof named, "make %s", goal);
            const char *at = strstr(help, named);
            /* "make fuzz" is not "make fuzz-build": the name must end there. */
            while (at && (isalnum((unsigned char)at[strlen(named)]) || at[strlen(named)] == '-'))
                at = strstr(at + 1, named);
            if (strcmp(goal, "all") != 0 && !at)
                fail_msg("make help does not name the goal '%s'", goal);
            goals++;
        }
    }
    assert_true(goals >= 10);
}

/* Every VAR= the help names is one the Makefile reads. */
static void every_variable_it_names_is_used(void **state)
{
    (void)state;
    read_help();
    static char makefile[256 * 1024];
    test_read_file("Makefile", makefile, sizeof makefile);
    const char *body = strstr(makefile, "\n\n"); /* past the header comment */
    assert_non_null(body);
    int variables = 0;
    for (const char *p = help; (p = strchr(p, '=')); p++) {
        const char *start = p;
        while (start > help && (isupper((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        if (p - start < 2 || (p - start == 3 && strncmp(start, "VAR", 3) == 0)) /* make VAR=value */
            continue;
        char use[64];
        snprintf(use, sizeof use, "$(%.*s)", (int)(p - start), start);
        if (!strstr(body, use))
            fail_msg("make help names %.*s, which the Makefile does not use", (int)(p - start), start);
        variables++;
    }
    assert_true(variables >= 8);
}

/* The architectures a build compiles for, as make -n shows them (sorted "-gencode" arguments,
 * one a line), for the CUDA_ARCH given ("" for the default), with no GPU found (NVIDIA_SMI=false). */
static const char *gencodes(const char *arch)
{
    /* Without the CUDA_ARCH of the environment: `make CUDA_ARCH=75 test` (CI's) exports it. */
    struct command_result *r = run_shell(
        "env -u CUDA_ARCH " MAKE " -n NVIDIA_SMI=false BUILD=/nonexistent-build /nonexistent-build/01-base %s%s%s 2>&1 | "
        "grep -o 'gencode arch=[^ ]*' | sort -u",
        *arch ? "CUDA_ARCH='" : "", arch, *arch ? "'" : "");
    assert_int_equal(r->exit_code, 0);
    return r->out;
}

/* Without a GPU the default is the course's GPUs (7.5: the T4; 9.0: the H100 and H200) with PTX
 * of 7.5, which any GPU of 7.5 or newer can run, so a first build on a machine without a GPU
 * compiles two architectures, not every one nvcc knows (CUDA_ARCH=all, PTX of the newest); one
 * architecture keeps its PTX too. */
static void the_default_is_the_courses_gpus(void **state)
{
    (void)state;
    if (run_shell("command -v nvcc >/dev/null")->exit_code != 0)
        skip();
    char out[4096];
    snprintf(out, sizeof out, "%.4000s", gencodes(""));
    assert_string_equal(out, "gencode arch=compute_75,code=compute_75\n"
                             "gencode arch=compute_75,code=sm_75\n"
                             "gencode arch=compute_90,code=sm_90\n");
    snprintf(out, sizeof out, "%.4000s", gencodes("75"));
    assert_string_equal(out, "gencode arch=compute_75,code=compute_75\n"
                             "gencode arch=compute_75,code=sm_75\n");
    snprintf(out, sizeof out, "%.4000s", gencodes("all"));
    /* Every architecture nvcc lists, 7.5 and 9.0 among them, and more than those two; no PTX of
     * 7.5 (that of the newest). */
    assert_non_null(strstr(out, "gencode arch=compute_75,code=sm_75\n"));
    assert_null(strstr(out, "gencode arch=compute_75,code=compute_75\n"));
    assert_non_null(strstr(out, "gencode arch=compute_90,code=sm_90\n"));
    int lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++)
        lines++;
    assert_true(lines > 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_works_without_nvcc),
        cmocka_unit_test(every_goal_it_names_exists),
        cmocka_unit_test(every_phony_goal_is_named),
        cmocka_unit_test(every_variable_it_names_is_used),
        cmocka_unit_test(the_default_is_the_courses_gpus),
    };
    return cmocka_run_group_tests_name("make help", tests, NULL, NULL);
}
