/* The stage manifests (stages/<stage>/manifest) and their one reader, tools/stages: every stage
 * folder has one and it is valid; a malformed one is refused in one line; a new stage is only a
 * folder with a manifest, and the Makefile, make list, make diff and the reader all see it; and
 * each built stage's --help says what its manifest says. No GPU needed. Run from the repository
 * root. */
#include <glob.h>

#include "test_support.h"

#define READER "tools/stages"

/* Exit status 2, nothing on stdout, one line on stderr that contains want. */
static void assert_refused(const struct command_result *r, const char *want)
{
    if (r->exit_code != 2 || line_count(r->err) != 1 || !strstr(r->err, want))
        fail_msg("expected exit status 2 and one line with '%s'; got %d: %s", want, r->exit_code, r->err);
    assert_string_equal(r->out, "");
}

static void every_stage_folder_has_a_valid_manifest(void **state)
{
    (void)state;
    glob_t folders;
    assert_int_equal(glob("stages/*/", 0, NULL, &folders), 0);
    size_t count = folders.gl_pathc;
    for (size_t k = 0; k < count; k++) {
        char path[512];
        snprintf(path, sizeof path, "%smanifest", folders.gl_pathv[k]);
        if (access(path, R_OK) != 0)
            fail_msg("%s: no manifest", folders.gl_pathv[k]);
    }
    globfree(&folders);
    struct command_result *r = run_shell(READER " list | wc -l");
    assert_int_equal(r->exit_code, 0);
    assert_int_equal(atoi(r->out), (int)count);
    r = run_shell(READER " check");
    if (r->exit_code != 0)
        fail_msg("tools/stages check: %s", r->err);
    /* The course's order: the main chain with each side stage after its number, then the track. */
    r = run_shell(READER " list | head -n 8 | tr '\\n' ' '");
    assert_string_equal(r->out, "01-base 02-static-registers 02a-buffered-text-image 03-block-size 04-float3 "
                                "05-pinned-memory 06-no-framebuffer-upload 07-shared-spheres ");
    r = run_shell(READER " list pt chain | head -n 1");
    assert_string_equal(r->out, "p01-base\n");
    r = run_shell(READER " list main side | head -n 1");
    assert_string_equal(r->out, "02a-buffered-text-image\n");
    /* The same stages the Makefile builds (make list needs no nvcc). */
    r = run_shell(MAKE " -s list NVCC=/nonexistent/nvcc | wc -l");
    assert_int_equal(r->exit_code, 0);
    assert_int_equal(atoi(r->out), (int)count);
}

static void fields_and_defaults(void **state)
{
    (void)state;
    struct command_result *r = run_shell(READER " get 21 campaign-args");
    assert_string_equal(r->out, "--frames 20\n");
    r = run_shell(READER " get 7d builds-on");
    assert_string_equal(r->out, "07c-unified-memory\n");
    r = run_shell(READER " get p08b estimator");
    assert_string_equal(r->out, "nee\n");
    r = run_shell(READER " get 12a max-differing-percent");
    assert_string_equal(r->out, "0.03\n");
    r = run_shell(READER " get 07 max-differing-percent"); /* the default: the CPU reference's bits */
    assert_string_equal(r->out, "0\n");
    /* The kernel tools/profile.sh measures: render_kernel unless the manifest names another. */
    r = run_shell(READER " get 07 profile-kernel && " READER " get p9 profile-kernel && " READER " get p1 profile-launch");
    assert_string_equal(r->out, "render_kernel\npersistent_kernel\n1\n");
    r = run_shell(READER " get 42 launcher && " READER " get 42 libraries && " READER " get 40 launcher && "
                  READER " list --library nccl");
    assert_string_equal(r->out, "ranks\nnccl\n\n42-ranks-over-gpus\n");
    r = run_shell(READER " get p5a track && " READER " get p5a kind && " READER " get p05a-split-channels id");
    assert_string_equal(r->out, "pt\nside\np5a\n");
    r = run_shell(READER " select 1-4,7a,p1-2 | tr '\\n' ' '");
    assert_string_equal(r->out, "01-base 02-static-registers 02a-buffered-text-image 03-block-size 04-float3 "
                                "07a-branch-free-intersection p01-base p02-no-device-malloc ");
    assert_refused(run_shell(READER " get 21 bogus"), "unknown field 'bogus'");
    assert_refused(run_shell(READER " get 99 lesson"), "unknown stage '99'");
    assert_refused(run_shell(READER " select 1,98"), "--stages item '98' names no stage");
    assert_refused(run_shell(READER " select 1-18446744073709551617"), "is not N, Nx, N-M");
    assert_refused(run_shell(READER " select 5-2"), "the range runs backwards");
    /* A range starts and ends at a stage of its track: 1-98, 0-3 and p1-98 do not. */
    assert_refused(run_shell(READER " select 1-98"), "--stages item '1-98': no stage is numbered 98 in ");
    assert_refused(run_shell(READER " select 0-3"), "--stages item '0-3': no stage is numbered 0 in ");
    assert_refused(run_shell(READER " select 2,p1-98"), "--stages item 'p1-98': no stage is numbered p98 in ");
    assert_refused(run_shell(READER " select 1,,2"), "empty item");
    assert_refused(run_shell(READER " frobnicate"), "unknown command 'frobnicate'");
}

static void malformed_manifests_are_refused_in_one_line(void **state)
{
    (void)state;
    const struct {
        const char *lines, *message;
    } bad[] = {
        {"lesson: x\nbuilds-on: none\n", "no \"chapter:\" line"},
        {"", "empty: a stage needs lesson builds-on chapter"},
        {"lesson: x\nbuilds-on: none\nchapter: c\ncolour: red\n", "unknown key \"colour\""},
        {"lesson: x\nlesson: y\nbuilds-on: none\nchapter: c\n", "\"lesson\" given twice"},
        {"lesson: x\nbuilds-on: none\nchapter: c\njust words\n", "not \"key: value\""},
        {"lesson: x\nbuilds-on: none\nchapter:\n", "\"chapter:\" has no value"},
        {"lesson: x\nbuilds-on: none\nchapter: c\ncampaign-image: gif\n", "campaign-image: 'gif' is not png or ppm"},
        {"lesson: x\nbuilds-on: none\nchapter: c\ncampaign-image: png png\n", "or is given twice"},
        {"lesson: x\nbuilds-on: none\nchapter: c\ndifftest-differing-percent: 101\n",
         "difftest-differing-percent: '101' is not a percentage"},
        {"lesson: x\nbuilds-on: none\nchapter: c\ndifftest-differing-percent: 5\n",
         "difftest-differing-percent without max-differing-percent"},
        {"lesson: x\nbuilds-on: none\nchapter: c\nprofile-kernel: render-kernel\n",
         "profile-kernel: 'render-kernel' is not a kernel name"},
        {"lesson: x\nbuilds-on: none\nchapter: c\nprofile-launch: 10000\n", "profile-launch: '10000' is not a launch number"},
        {"lesson: x\nbuilds-on: none\nchapter: c\nlauncher: mpi\n", "launcher: 'mpi' is not ranks"},
        {"lesson: x\nbuilds-on: none\nchapter: c\nlibraries: blas\n", "libraries: 'blas' is not nccl"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *dir = make_temporary_folder();
        make_stage(dir, "01-only", bad[k].lines, 1);
        assert_refused(run_shell("STAGES_DIR='%s' " READER " table", dir), bad[k].message);
        assert_refused(run_shell("STAGES_DIR='%s' " READER " get 1 lesson", dir), "01-only/manifest");
        remove_temporary_folder(dir);
    }
    /* What `check` holds beyond the syntax, each a line naming the manifest. */
    const struct {
        const char *name, *lines, *message;
    } rules[] = {
        {"02-two", "lesson: x\nbuilds-on: 09-nowhere\nchapter: c\n", "'09-nowhere', which is not a stage folder"},
        {"02-two", "lesson: x\nbuilds-on: none\nchapter: c\n", "only the first stage of a track builds on none"},
        {"02-two", "lesson: x\nbuilds-on: 01-first\nchapter: c\nestimator: nee\n", "the main track has none"},
        {"02-two", "lesson: x\nbuilds-on: 01-first\nchapter: c\noptions: --tiles\n", "'--tiles' is not one a main stage may take"},
        {"02-two", "lesson: x\nbuilds-on: 01-first\nchapter: c\nmax-differing-percent: lots\n", "'lots' is not a percentage"},
        {"02a-side", "lesson: x\nbuilds-on: none\nchapter: c\n", "a side stage builds on a stage"},
        {"p01-path", "lesson: x\nbuilds-on: none\nchapter: c\n", "no \"estimator:\" line"},
        {"p01-path", "lesson: x\nbuilds-on: 01-first\nchapter: c\nestimator: path\n", "a stage of the other track"},
        {"01-zlast", "lesson: x\nbuilds-on: 01-first\nchapter: c\n", "id 1 is shared by 01-first and 01-zlast"},
        {"02-two", "lesson: first\nbuilds-on: 01-first\nchapter: c\n", "the same lesson as 01-first"},
        {"02-two", "lesson: x\nbuilds-on: 01-first\nchapter: c\nlauncher: ranks\n",
         "launcher: ranks, but --rendezvous is not among its options"},
        {"02-two", "lesson: x\nbuilds-on: 01-first\nchapter: c\noptions: --rendezvous\n",
         "options: --rendezvous is for a stage of one process a GPU (launcher: ranks)"},
    };
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        char *dir = make_temporary_folder();
        make_stage(dir, "01-first", "lesson: first\nbuilds-on: none\nchapter: c\n", 1);
        make_stage(dir, rules[k].name, rules[k].lines, 1);
        struct command_result *r = run_shell("STAGES_DIR='%s' " READER " check", dir);
        if (r->exit_code != 2 || !strstr(r->err, rules[k].message) || !strstr(r->err, "/manifest"))
            fail_msg("rule %zu: expected status 2 and '%s'; got %d: %s", k, rules[k].message, r->exit_code, r->err);
        remove_temporary_folder(dir);
    }
}

/* The test: a new stage is a folder with a manifest; the reader lists it, make lists it
 * and would build it, make diff compares it with the stage it builds on. */
static void a_new_stage_is_a_folder_with_a_manifest(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    make_stage(dir, "01-first", "lesson: the first\nbuilds-on: none\nchapter: Made up\n", 1);
    make_stage(dir, "02-second", "lesson: the second\nbuilds-on: 01-first\nchapter: Made up\n", 1);
    make_stage(dir, "22-my-lesson",
              "# my own stage\nlesson: what \"I\" teach \\\\ here\nbuilds-on: 02-second\n"
              "chapter: Made up\noptions: --frames\ncampaign-args: --frames 3\n", 1);
    struct command_result *r = run_shell("STAGES_DIR='%s' " READER " list | tr '\\n' ' '", dir);
    assert_string_equal(r->out, "01-first 02-second 22-my-lesson ");
    r = run_shell("STAGES_DIR='%s' " READER " check", dir);
    assert_int_equal(r->exit_code, 0);
    r = run_shell("STAGES_DIR='%s' " MAKE " -s list NVCC=/nonexistent/nvcc", dir);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "22    22-my-lesson"));
    assert_non_null(strstr(r->out, "02-second"));
    /* The build: its render.cu and its manifest made C, linked with the main track's main. */
    r = run_shell("STAGES_DIR='%s' " MAKE " -n BUILD='%s/build' CUDA_ARCH=90 INSTALL_DEPS_SKIP_STB=1 "
                  "'%s/build/22-my-lesson' 2>&1", dir, dir, dir);
    if (r->exit_code != 0)
        fail_msg("make -n of the new stage: %s", r->out);
    assert_non_null(strstr(r->out, "/22-my-lesson/render.cu"));
    assert_non_null(strstr(r->out, "tools/stages c-source 22-my-lesson"));
    assert_non_null(strstr(r->out, "raytrace/rt_track.o"));
    /* Its manifest as C: quotes and backslashes escaped. */
    r = run_shell("STAGES_DIR='%s' " READER " c-source 22", dir);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "\"what \\\"I\\\" teach \\\\\\\\ here\","));
    assert_non_null(strstr(r->out, "\"02-second\","));
    assert_non_null(strstr(r->out, "\"--frames\","));
    /* make diff: against the stage it builds on. */
    r = run_shell(MAKE " -s diff STAGE=22 STAGES_DIR='%s' NVCC=/nonexistent/nvcc | head -n 2", dir);
    assert_string_equal(r->out, "--- 02-second (make show STAGE=2)\n+++ 22-my-lesson (make show STAGE=22)\n");
    remove_temporary_folder(dir);
}

/* Each built stage's --help (no GPU needed) opens with its manifest's name, lesson and the stage
 * it builds on; a path-tracing stage's names its estimator. */
static void help_says_what_the_manifest_says(void **state)
{
    (void)state;
    struct command_result *r =
        run_shell(READER " table | awk -F'\\t' -v OFS='\\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }"
                  " { print $c[\"stage\"], $c[\"lesson\"], $c[\"builds-on\"], $c[\"estimator\"] }'");
    /* A copy to walk: each stage's --help runs through run_shell() too. */
    static char table[TEST_OUTPUT_BYTES];
    snprintf(table, sizeof table, "%s", r->out);
    const int table_status = r->exit_code;
    int checked = 0;
    char *cursor = table;
    for (char *line; (line = next_line(&cursor));) {
        char *stage = line, *lesson = strchr(stage, '\t');
        assert_non_null(lesson);
        *lesson++ = '\0';
        char *builds_on = strchr(lesson, '\t');
        assert_non_null(builds_on);
        *builds_on++ = '\0';
        char *estimator = strchr(builds_on, '\t');
        assert_non_null(estimator);
        *estimator++ = '\0';
        char path[2048];
        snprintf(path, sizeof path, "%s/%.200s", test_build_dir(), stage);
        if (access(path, X_OK) != 0)
            continue; /* not built here */
        r = run_shell("'%s' --help", path);
        assert_int_equal(r->exit_code, 0);
        char expected[2048];
        snprintf(expected, sizeof expected, "%.200s: %.400s\nbuilds on: ", stage, lesson);
        if (strncmp(r->out, expected, strlen(expected)) != 0)
            fail_msg("%s --help starts '%.200s', expected '%s'", stage, r->out, expected);
        if (strcmp(builds_on, "none") != 0) {
            snprintf(expected, sizeof expected, "\nbuilds on: %.200s (", builds_on);
            assert_non_null(strstr(r->out, expected));
        }
        if (*estimator) {
            snprintf(expected, sizeof expected, "\nestimator: %.200s\n", estimator);
            assert_non_null(strstr(r->out, expected));
        }
        ++checked;
    }
    assert_int_equal(table_status, 0);
    print_message("# %d stages' --help checked against their manifests\n", checked);
    if (checked < 50)
        fail_msg("only %d stages built: build the course (make all tests) before this test", checked);
}

/* Each stage's header comment (the comment before its first #include) is its own lesson: it
 * names the stage its manifest builds on ("Builds on NAME." or, for the first of a track, "builds
 * on nothing") and is short (the ancestors' history lives in the READMEs). */
static void headers_name_the_stage_they_build_on(void **state)
{
    (void)state;
    struct command_result *r = run_shell(
        "tools/stages table | cut -f1,3 | tail -n +2 | while IFS=\"$(printf '\\t')\" read -r stage parent; do "
        "  header=$(awk '/^#include/ { exit } { print }' \"stages/$stage/render.cu\"); "
        "  lines=$(printf '%%s\\n' \"$header\" | wc -l); "
        "  [ \"$lines\" -le 40 ] || echo \"$stage: a header of $lines lines (at most 40)\"; "
        "  if [ \"$parent\" = none ]; then want='builds on nothing'; else want=\"Builds on $parent.\"; fi; "
        "  printf '%%s\\n' \"$header\" | tr '\\n' ' ' | tr -s ' *' ' ' | grep -qF \"$want\" || "
        "    echo \"$stage: its header does not say '$want'\"; "
        "done");
    assert_int_equal(r->exit_code, 0);
    if (r->out[0])
        fail_msg("%s", r->out);
}

/* The profile metrics a manifest names are rows of the profile summary
 * (tools/runner/profile_summary.py
 * FIELDS): update_readmes.py puts those rows of a stage's profile in bold, and a misspelt key
 * would leave the lesson unmarked without a word. */
static void profile_metrics_are_known(void **state)
{
    (void)state;
    struct command_result *r = run_shell(
        "python3 -c \"import sys; sys.path.insert(0, 'tools/runner'); import profile_summary as ps, summarize as sm; "
        "known = {k for k, *_ in ps.FIELDS}; "
        "bad = [(s, k) for s, m in sm.manifests().items() for k in m['profile-metrics'].split() if k not in known]; "
        "print(bad or ''); sys.exit(1 if bad else 0)\"");
    if (r->exit_code != 0)
        fail_msg("unknown profile-metrics keys (stage, key): %s%s", r->out, r->err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_folder_has_a_valid_manifest),
        cmocka_unit_test(fields_and_defaults),
        cmocka_unit_test(malformed_manifests_are_refused_in_one_line),
        cmocka_unit_test(a_new_stage_is_a_folder_with_a_manifest),
        cmocka_unit_test(help_says_what_the_manifest_says),
        cmocka_unit_test(headers_name_the_stage_they_build_on),
        cmocka_unit_test(profile_metrics_are_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
