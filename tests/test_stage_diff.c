/* Tests of tools/stage-diff.sh and `make diff`: which stage's program a stage is compared with (the
 * stage its manifest builds on, or FROM), the ids it accepts, plain output when piped, the errors
 * (exit status 2, one line), and that `make diff` needs no nvcc. No GPU needed. Run from the
 * repository root. */
#include "test_support.h"

#define TOOL "tools/stage-diff.sh"

/* 1 when some line of text starts with prefix and contains needle (NULL: any line). */
static int has_line(const char *text, const char *prefix, const char *needle)
{
    size_t prefix_length = strlen(prefix);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length >= prefix_length && strncmp(line, prefix, prefix_length) == 0) {
            if (!needle)
                return 1;
            char buffer[4096];
            snprintf(buffer, sizeof buffer, "%.*s", (int)(length < 4095 ? length : 4095), line);
            if (strstr(buffer, needle))
                return 1;
        }
        if (!end)
            break;
        line = end + 1;
    }
    return 0;
}

/* The output starts with the unified diff's two header lines, the programs of <from> and <to>
 * as `make show` prints them. */
static void assert_headers(const char *out, const char *from, const char *to)
{
    char expected[512];
    snprintf(expected, sizeof expected, "--- %s (make show STAGE=", from);
    const char *second = strstr(out, "\n+++ ");
    if (strncmp(out, expected, strlen(expected)) != 0 || !second)
        fail_msg("expected the output to start with\n%s...\ngot\n%.300s", expected, out);
    snprintf(expected, sizeof expected, "\n+++ %s (make show STAGE=", to);
    if (strncmp(second, expected, strlen(expected)) != 0)
        fail_msg("expected the second line to start with\n%s...\ngot\n%.300s", expected + 1, out);
}

/* A diff that found differences: exit status 1, nothing on stderr, a hunk, no escape byte. */
static void assert_plain_diff(const struct command_result *r)
{
    if (r->exit_code != 1)
        fail_msg("exit status %d (expected 1, 'they differ'); stderr: %s", r->exit_code, r->err);
    assert_string_equal(r->err, "");
    assert_true(has_line(r->out, "@@ -", NULL));
    assert_null(strchr(r->out, 0x1b));
}

static void test_main_stage_against_previous(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL " 8");
    assert_plain_diff(r);
    assert_headers(r->out, "07-shared-spheres", "08-rgb8-framebuffer");
    /* Stage 08's lesson: the kernel stores each pixel as three bytes (rt_math.cuh's store_pixel),
     * in the kernel part of its own folder, which the hunk names. */
    assert_true(has_line(r->out, "+", "store_pixel"));
    assert_false(has_line(r->out, "-", "store_pixel"));
    assert_true(has_line(r->out, "@@ ", "stages/08-rgb8-framebuffer/kernel.cuh"));
}

static void test_ids_and_folder_names(void **state)
{
    (void)state;
    static char first[TEST_OUTPUT_BYTES];
    const char *same[] = {"7", "07", "07-shared-spheres", "stages/07-shared-spheres/"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        struct command_result *r = run_shell(TOOL " '%s'", same[i]);
        assert_plain_diff(r);
        assert_headers(r->out, "06-no-framebuffer-upload", "07-shared-spheres");
        if (i == 0)
            strcpy(first, r->out);
        else
            assert_string_equal(r->out, first);
    }
    struct command_result *r = run_shell(TOOL " 13");
    assert_plain_diff(r);
    assert_headers(r->out, "12-lean-intersection", "13-steady-state");
}

static void test_side_stage_against_main_stage(void **state)
{
    (void)state;
    const char *ids[] = {"7a", "07a", "07a-branch-free-intersection"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        struct command_result *r = run_shell(TOOL " %s", ids[i]);
        assert_plain_diff(r);
        assert_headers(r->out, "07-shared-spheres", "07a-branch-free-intersection");
    }
    struct command_result *r = run_shell(TOOL " 12b");
    assert_plain_diff(r);
    assert_headers(r->out, "12-lean-intersection", "12b-packet-culling");
}

static void test_side_stage_builds_on_another_side_stage(void **state)
{
    (void)state;
    char named[1024];
    test_read_file("stages/07d-managed-prefetch/manifest", named, sizeof named);
    assert_non_null(strstr(named, "\nbuilds-on: 07c-unified-memory\n"));
    const char *ids[] = {"07d", "7d", "07d-managed-prefetch"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        struct command_result *r = run_shell(TOOL " %s", ids[i]);
        assert_plain_diff(r);
        assert_headers(r->out, "07c-unified-memory", "07d-managed-prefetch");
    }
}

static void test_from(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL " 8 1");
    assert_plain_diff(r);
    assert_headers(r->out, "01-base", "08-rgb8-framebuffer");
    r = run_shell(TOOL " 07d 07");
    assert_plain_diff(r);
    assert_headers(r->out, "07-shared-spheres", "07d-managed-prefetch");
    /* A stage against itself: no differences, status 0, no output. */
    r = run_shell(TOOL " 07a 7a");
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->out, "");
}

/* Piped (not a terminal): no colour. On a terminal (script(1) gives one): colour. */
static void test_colour_only_on_a_terminal(void **state)
{
    (void)state;
    struct command_result *r = run_shell(TOOL " 8 | cat");
    assert_int_equal(r->exit_code, 0);
    assert_true(strlen(r->out) > 100);
    assert_null(strchr(r->out, 0x1b));
    r = run_shell(MAKE " -s diff STAGE=8 | cat");
    assert_int_equal(r->exit_code, 0);
    assert_true(strlen(r->out) > 100);
    assert_null(strchr(r->out, 0x1b));
    if (run_shell("script -qec true /dev/null </dev/null")->exit_code != 0) {
        print_message("# script(1) not usable here: the terminal half is not checked\n");
        return;
    }
    r = run_shell("unset NO_COLOR; script -qec '" TOOL " 8' /dev/null </dev/null");
    assert_non_null(strchr(r->out, 0x1b));
    assert_non_null(strstr(r->out, "store_pixel"));
}

/* Exit status 2, nothing on stdout, and one line on stderr containing each of want. */
static void assert_error(const struct command_result *r, const char *want1, const char *want2)
{
    if (r->exit_code != 2)
        fail_msg("exit status %d (expected 2); stderr: %s", r->exit_code, r->err);
    assert_string_equal(r->out, "");
    assert_int_equal(line_count(r->err), 1);
    if (!strstr(r->err, want1) || (want2 && !strstr(r->err, want2)))
        fail_msg("expected '%s'%s%s in the message, got: %s", want1, want2 ? " and " : "",
                 want2 ? want2 : "", r->err);
}

static void test_errors(void **state)
{
    (void)state;
    assert_error(run_shell(TOOL " 99"), "unknown stage '99'", NULL);
    assert_error(run_shell(TOOL " 7z"), "unknown stage '7z'", NULL);
    assert_error(run_shell(TOOL " foo"), "unknown stage 'foo'", NULL);
    assert_error(run_shell(TOOL " 08 nothing"), "unknown stage 'nothing'", NULL);
    assert_error(run_shell(TOOL " 1"), "01-base", "FROM");
    assert_error(run_shell(TOOL " 01-base"), "builds on nothing", "FROM");
    assert_error(run_shell(TOOL), "no stage given", NULL);
    assert_error(run_shell(TOOL " 1 2 3"), "too many arguments", NULL);
    assert_error(run_shell(TOOL " --bogus 8"), "unknown option", NULL);
    /* An empty folder ('', a variable never set) is refused, not taken for the default. */
    assert_error(run_shell(TOOL " --stages '' 8"), "--stages needs a folder", NULL);
    assert_error(run_shell(TOOL " --stages= 8"), "--stages needs a folder", NULL);
    struct command_result *r = run_shell(TOOL " --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/stage-diff.sh"));
}

/* The path-tracing track: each stage against the one its manifest builds on (the previous pNN of
 * the chain; a side stage's parent), ids p2, p02, p5a, p05a or folder names; FROM across stages;
 * the first stage, p01, builds on nothing. */
static void test_path_tracing_stages(void **state)
{
    (void)state;
    const char *p02[] = {"p2", "p02", "P02", "p02-no-device-malloc", "stages/p02-no-device-malloc/"};
    for (size_t i = 0; i < sizeof p02 / sizeof *p02; i++) {
        struct command_result *r = run_shell(TOOL " '%s'", p02[i]);
        assert_plain_diff(r);
        assert_headers(r->out, "p01-base", "p02-no-device-malloc");
    }
    const char *p05a[] = {"p5a", "p05a", "p05a-split-channels"};
    for (size_t i = 0; i < sizeof p05a / sizeof *p05a; i++) {
        struct command_result *r = run_shell(TOOL " %s", p05a[i]);
        assert_plain_diff(r);
        assert_headers(r->out, "p05-soa-samples", "p05a-split-channels");
    }
    /* The chain skips the side stage: p06 comes after p05, not p05a. */
    struct command_result *r = run_shell(TOOL " p6");
    assert_plain_diff(r);
    assert_headers(r->out, "p05-soa-samples", "p06-device-accumulation");
    r = run_shell(MAKE " -s diff STAGE=p02 NVCC=/nonexistent/nvcc");
    if (r->exit_code != 0)
        fail_msg("make diff STAGE=p02: exit status %d; stderr: %s", r->exit_code, r->err);
    assert_headers(r->out, "p01-base", "p02-no-device-malloc");
    r = run_shell(MAKE " -s diff STAGE=p5a NVCC=/nonexistent/nvcc");
    assert_int_equal(r->exit_code, 0);
    assert_headers(r->out, "p05-soa-samples", "p05a-split-channels");
    r = run_shell(MAKE " -s diff STAGE=p03 FROM=p01 NVCC=/nonexistent/nvcc");
    assert_int_equal(r->exit_code, 0);
    assert_headers(r->out, "p01-base", "p03-structs-in-registers");
    /* Across the tracks with FROM. */
    r = run_shell(TOOL " p01 01");
    assert_plain_diff(r);
    assert_headers(r->out, "01-base", "p01-base");
    /* p01 opens its track: status 2 and one line that asks for FROM (not stage 18 or 01). */
    assert_error(run_shell(TOOL " p01"), "p01-base is the first of its track", "FROM=");
    assert_error(run_shell(TOOL " p1"), "builds on nothing", "FROM");
    r = run_shell(MAKE " -s diff STAGE=p01 NVCC=/nonexistent/nvcc");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->out, "");
    if (strncmp(r->err, "stage-diff: stage p01-base is the first of its track", 52) != 0 || !strstr(r->err, "FROM"))
        fail_msg("make diff STAGE=p01: expected stage-diff's one line asking for FROM first, got: %s", r->err);
    assert_error(run_shell(TOOL " p99"), "unknown stage 'p99'", "p99-");
    assert_error(run_shell(TOOL " p5z"), "unknown stage 'p5z'", NULL);
    assert_error(run_shell(TOOL " p02 pq"), "unknown stage 'pq'", NULL);
}

/* Ambiguous ids, a builds-on naming a missing folder, and a new stage that only needs its folder
 * (manifest and render.cu) to be diffed, in a made-up stage tree. */
static void test_errors_in_a_stage_tree(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    make_fake_stage(dir, "07-one", "none", NULL, NULL, 1);
    make_fake_stage(dir, "07-two", "07-one", NULL, NULL, 1);
    make_fake_stage(dir, "08-next", "07-two", NULL, NULL, 1);
    make_fake_stage(dir, "09-more", "08-next", NULL, NULL, 1);
    make_fake_stage(dir, "09a-lost", "07-gone", NULL, NULL, 1);
    make_fake_stage(dir, "09b-ok", "08-next", NULL, NULL, 1);
    assert_error(run_shell(TOOL " --stages '%s' 7", dir), "'7' is ambiguous", "07-one 07-two");
    assert_error(run_shell(TOOL " --stages '%s' 9a", dir), "09a-lost/manifest", "'07-gone'");
    struct command_result *r = run_shell(TOOL " --stages '%s' 9b", dir);
    assert_int_equal(r->exit_code, 1);
    assert_headers(r->out, "08-next", "09b-ok");
    assert_true(has_line(r->out, "+", "09b-ok"));
    /* A stage whose manifest names another as the one it builds on is diffed against that one,
     * whatever its number says. */
    make_fake_stage(dir, "10-new-lesson", "07-two", NULL, NULL, 1);
    r = run_shell(TOOL " --stages '%s' 10", dir);
    assert_int_equal(r->exit_code, 1);
    assert_headers(r->out, "07-two", "10-new-lesson");
    /* The path-tracing track in the same tree: its own stages, a side stage's builds-on, and
     * ambiguous p ids. */
    make_fake_stage(dir, "p01-first", "none", NULL, NULL, 1);
    make_fake_stage(dir, "p03-third", "p01-first", NULL, NULL, 1);
    make_fake_stage(dir, "p03a-side", "p01-first", NULL, NULL, 1);
    make_fake_stage(dir, "p04-one", "p03-third", NULL, NULL, 1);
    make_fake_stage(dir, "p04-two", "p03-third", NULL, NULL, 1);
    r = run_shell(TOOL " --stages '%s' p3", dir);
    assert_int_equal(r->exit_code, 1);
    assert_headers(r->out, "p01-first", "p03-third");
    r = run_shell(TOOL " --stages '%s' p3a", dir);
    assert_int_equal(r->exit_code, 1);
    assert_headers(r->out, "p01-first", "p03a-side");
    assert_error(run_shell(TOOL " --stages '%s' p4", dir), "'p4' is ambiguous", "p04-one p04-two");
    assert_error(run_shell(TOOL " --stages '%s' p1", dir), "p01-first", "FROM");
    /* A stage folder without a manifest is refused with one line naming it. */
    assert_int_equal(run_shell("mkdir '%s/11-no-manifest' && echo x > '%s/11-no-manifest/render.cu'", dir, dir)->exit_code, 0);
    assert_error(run_shell(TOOL " --stages '%s' 11", dir), "11-no-manifest/manifest", "no such file");
    remove_temporary_folder(dir);
}

/* make diff works without nvcc and stb, exits 0 although the files differ, and passes errors on;
 * the other goals still stop at once without nvcc. */
static void test_make_diff_without_nvcc(void **state)
{
    (void)state;
    struct command_result *r = run_shell(MAKE " -s diff STAGE=8 NVCC=/nonexistent/nvcc");
    if (r->exit_code != 0)
        fail_msg("make diff: exit status %d; stderr: %s", r->exit_code, r->err);
    assert_headers(r->out, "07-shared-spheres", "08-rgb8-framebuffer");
    assert_true(has_line(r->out, "+", "store_pixel"));
    r = run_shell(MAKE " -s diff STAGE=07d FROM=01 NVCC=/nonexistent/nvcc STB_INCLUDE_DIR=/nonexistent");
    assert_int_equal(r->exit_code, 0);
    assert_headers(r->out, "01-base", "07d-managed-prefetch");
    r = run_shell(MAKE " -s diff STAGE=1 NVCC=/nonexistent/nvcc");
    assert_int_not_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "FROM"));
    r = run_shell(MAKE " -s diff NVCC=/nonexistent/nvcc");
    assert_int_not_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "STAGE="));
    const char *goals[] = {"", "all", "test", "diff all"};
    for (size_t i = 0; i < sizeof goals / sizeof *goals; i++) {
        r = run_shell(MAKE " -n %s STAGE=8 NVCC=/nonexistent/nvcc", goals[i]);
        assert_int_not_equal(r->exit_code, 0);
        assert_non_null(strstr(r->err, "nvcc not found"));
    }
    r = run_shell(MAKE " -n all NVCC=true STB_INCLUDE_DIR=/nonexistent");
    assert_int_not_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "stb_image_write.h not found"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_stage_against_previous),
        cmocka_unit_test(test_ids_and_folder_names),
        cmocka_unit_test(test_side_stage_against_main_stage),
        cmocka_unit_test(test_side_stage_builds_on_another_side_stage),
        cmocka_unit_test(test_from),
        cmocka_unit_test(test_path_tracing_stages),
        cmocka_unit_test(test_colour_only_on_a_terminal),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_errors_in_a_stage_tree),
        cmocka_unit_test(test_make_diff_without_nvcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
