/* Tests of tools/profile.sh (`make profile`) and tools/runner/profile_summary.py that need no GPU:
 * the
 * arguments, a missing ncu, a missing GPU (one line, exit status 2), the whole run with a fake
 * ncu that replays a committed report's raw metrics (which files it writes, which kernel, launch
 * and scene it asks for: a main-track stage's render_kernel, a path-tracing stage's kernel named
 * by its manifest's profile-kernel), the manifest's profile-kernel held to the stage's program
 * by tools/stages check, the summary of a committed profile, and a path-tracing stage's profile
 * in the README's Profile block (tools/update_readmes.py). Run from the repository root. */
#include "test_support.h"

#define TOOL "tools/profile.sh"
#define SUMMARY "python3 tools/runner/profile_summary.py"
#define COMMITTED "results/reference/nvidia-h100-80gb-hbm3/profiles/"

/* An error: exit status 2, nothing on stdout, one line on stderr that contains needle. */
static void assert_one_line_error(const struct command_result *r, const char *needle)
{
    if (r->exit_code != 2)
        fail_msg("exit status %d (expected 2); stderr: %s", r->exit_code, r->err);
    assert_string_equal(r->out, "");
    const char *newline = strchr(r->err, '\n');
    if (!newline || newline[1] != '\0')
        fail_msg("expected one line on stderr, got: %s", r->err);
    if (!strstr(r->err, needle))
        fail_msg("stderr does not contain '%s': %s", needle, r->err);
}

static void test_arguments(void **state)
{
    (void)state;
    assert_one_line_error(run_shell(TOOL), "no stage given");
    assert_one_line_error(run_shell(TOOL " 7 8"), "too many arguments");
    assert_one_line_error(run_shell(TOOL " 99"), "unknown stage '99'");
    assert_one_line_error(run_shell(TOOL " --launch x 7"), "--launch 'x' is not a launch number");
    assert_one_line_error(run_shell(TOOL " --scene"), "option --scene needs a value");
    assert_one_line_error(run_shell(TOOL " --scene nowhere.scene 7"), "no scene file 'nowhere.scene'");
    assert_one_line_error(run_shell(TOOL " --bogus 7"), "unknown option '--bogus'");
    struct command_result *r = run_shell(TOOL " --help");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "usage: tools/profile.sh"));
    assert_non_null(strstr(r->out, "make profile STAGE=07"));
}

static void test_missing_ncu_and_gpu(void **state)
{
    (void)state;
    assert_one_line_error(run_shell("NCU=/nonexistent/ncu " TOOL " 7"),
                          "ncu (Nsight Compute) not found at '/nonexistent/ncu'");
    assert_one_line_error(run_shell("NCU=/bin/true NVIDIA_SMI=false " TOOL " 7"), "no GPU");
    /* make profile: the same messages, and its own without STAGE. */
    struct command_result *r = run_shell(MAKE " -s profile");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "make profile STAGE=07"));
    r = run_shell(CLEAN_ENV " NCU=/nonexistent/ncu make -s profile STAGE=7 NVCC=/nonexistent/nvcc");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "ncu (Nsight Compute) not found"));
}

/* A fake ncu in folder: --version prints a version, --import prints the raw metrics of a
 * committed profile, a profiling run writes the report it is asked for and records its words. */
static void write_fakes(const char *folder, const char *raw)
{
    char path[256];
    snprintf(path, sizeof path, "%s/ncu", folder);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n"
               "case \"$1\" in\n"
               "  --version) echo 'NVIDIA (R) Nsight Compute Command Line Profiler'; "
               "echo 'Version 9.9.9 (fake)' ;;\n"
               "  --import) cat '%s' ;;\n"
               "  *) echo \"$*\" >'%s/words'; prev=''\n"
               "     for word in \"$@\"; do [ \"$prev\" = --export ] && echo report >\"$word.ncu-rep\"; "
               "prev=$word; done ;;\n"
               "esac\n",
            raw, folder);
    fclose(f);
    snprintf(path, sizeof path, "%s/nvidia-smi", folder);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho 'Fake GPU 1'\n");
    fclose(f);
    assert_int_equal(run_shell("chmod +x '%s/ncu' '%s/nvidia-smi'", folder, folder)->exit_code, 0);
}

/* tools/profile.sh OPTIONS STAGE_ID with the fakes; the fake ncu replays the raw metrics of the
 * committed profile of RAW_STAGE (a main-track stage's) with render_kernel renamed KERNEL (no
 * path-tracing stage has a committed profile yet: these are test data, not a measurement). */
static void run_with_fakes(const char *options, const char *stage_id, const char *stage, const char *raw_stage,
                           const char *kernel, const char *expected_title, const char *expected_words)
{
    char *folder = make_temporary_folder();
    char raw[512], path[512], text[TEST_OUTPUT_BYTES];
    snprintf(raw, sizeof raw, "%s/replayed.raw.csv", folder);
    assert_int_equal(run_shell("sed 's/render_kernel/%s/g' '%s%s.raw.csv' >'%s'", kernel, COMMITTED, raw_stage, raw)->exit_code,
                     0);
    write_fakes(folder, raw);
    struct command_result *r =
        run_shell(CLEAN_ENV " CUDA_ARCH=90 NCU='%s/ncu' NVIDIA_SMI='%s/nvidia-smi' " TOOL " %s --out '%s/out' %s",
                  folder, folder, options, folder, stage_id);
    if (r->exit_code != 0)
        fail_msg("exit status %d; stderr: %s", r->exit_code, r->err);
    /* The summary on stdout and in the .profile.txt, its title naming the GPU, scene and launch. */
    if (strncmp(r->out, expected_title, strlen(expected_title)) != 0)
        fail_msg("expected the summary to start with '%s', got: %.300s", expected_title, r->out);
    snprintf(path, sizeof path, "%s/out/%s.profile.txt", folder, stage);
    test_read_file(path, text, sizeof text);
    assert_string_equal(text, r->out);
    /* The report, its xz copy (what the repository keeps) and the raw metrics. */
    snprintf(path, sizeof path, "%s/out/%s.ncu-rep", folder, stage);
    assert_int_equal(access(path, F_OK), 0);
    r = run_shell("xz -dc '%s/out/%s.ncu-rep.xz'", folder, stage);
    assert_string_equal(r->out, "report\n");
    r = run_shell("cmp '%s' '%s/out/%s.raw.csv'", raw, folder, stage);
    assert_int_equal(r->exit_code, 0);
    /* Its provenance (tools/runner/provenance.sh): the stage's source hash and the sha256 of the
     * -lineinfo executable profiled. */
    r = run_shell("test \"$(sed -n 2p '%s/out/%s.provenance.tsv' | cut -f1-3)\" = \"$(tools/stages source-hash %s)$(printf "
                  "'\\t')$(sha256sum <build-lineinfo/%s | cut -d' ' -f1)\"",
                  folder, stage, stage, stage);
    if (r->exit_code != 0)
        fail_msg("%s/out/%s.provenance.tsv: not the stage's source hash and build-lineinfo/%s's sha256", folder, stage,
                 stage);
    /* What ncu was asked: the sections, the launch, the -lineinfo build and the scene. */
    snprintf(path, sizeof path, "%s/words", folder);
    test_read_file(path, text, sizeof text);
    assert_non_null(strstr(text, "--section SourceCounters"));
    assert_non_null(strstr(text, "--section Occupancy"));
    char words[256];
    snprintf(words, sizeof words, "--kernel-name %s --launch-skip", kernel);
    if (!strstr(text, words))
        fail_msg("ncu was not asked for '%s': %s", words, text);
    if (!strstr(text, expected_words))
        fail_msg("ncu was not asked for '%s': %s", expected_words, text);
    /* The summary names the kernel the report holds. */
    snprintf(words, sizeof words, "\nkernel: %s, grid ", kernel);
    snprintf(path, sizeof path, "%s/out/%s.profile.txt", folder, stage);
    test_read_file(path, text, sizeof text);
    if (!strstr(text, words))
        fail_msg("the summary does not name %s: %s", kernel, text);
    remove_temporary_folder(folder);
}

static void test_whole_run_with_a_fake_ncu(void **state)
{
    (void)state;
    /* The main track: render_kernel, the default of a manifest without profile-kernel. */
    run_with_fakes("", "7", "07-shared-spheres", "07-shared-spheres", "render_kernel",
                   "07-shared-spheres on Fake GPU 1: scenes/quick.scene, launch 0 of render_kernel (ncu 9.9.9)\n",
                   "--launch-skip 0 --launch-count 1");
    /* A stage that renders in bands: band 10 of the benchmark scene. */
    run_with_fakes("", "16", "16-smaller-blocks", "16-smaller-blocks", "render_kernel",
                   "16-smaller-blocks on Fake GPU 1: scenes/benchmark.scene, launch 10 of render_kernel",
                   "--launch-skip 10 --launch-count 1");
}

/* The path-tracing track: the kernel and launch its manifest names, on the scene its campaign
 * times it on. p08b's manifest: profile-kernel path_kernel, profile-launch 1 (sample 1), and
 * campaign-args --scene scenes/pt-many-lights.scene. */
static void test_a_path_tracing_stage_with_a_fake_ncu(void **state)
{
    (void)state;
    struct command_result *r = run_shell("tools/stages get p8b profile-kernel && tools/stages get p8b profile-launch");
    assert_string_equal(r->out, "path_kernel\n1\n");
    run_with_fakes("", "p8b", "p08b-next-event", "07-shared-spheres", "path_kernel",
                   "p08b-next-event on Fake GPU 1: scenes/pt-many-lights.scene, launch 1 of path_kernel (ncu 9.9.9)\n",
                   "--launch-skip 1 --launch-count 1 ");
    /* The stage runs once, on its campaign's scene: the scene is not given twice. */
    run_with_fakes("", "p08b", "p08b-next-event", "07-shared-spheres", "path_kernel", "p08b-next-event on Fake GPU 1: ",
                   "build-lineinfo/p08b-next-event --scene scenes/pt-many-lights.scene\n");
    /* --scene and --launch given: they win over the manifest's. */
    run_with_fakes("--scene scenes/pt-quick.scene --launch 0", "p08b-next-event", "p08b-next-event", "07-shared-spheres",
                   "path_kernel",
                   "p08b-next-event on Fake GPU 1: scenes/pt-quick.scene, launch 0 of path_kernel (ncu 9.9.9)\n",
                   "build-lineinfo/p08b-next-event --scene scenes/pt-quick.scene\n");
}

/* A manifest's profile-kernel must be a __global__ function of the stage's program (render.cu and
 * the parts it includes): a name it does not define is refused by tools/stages check in one line
 * naming the manifest; so is a missing profile-kernel where the program has no render_kernel.
 * A kernel declared over two lines (__launch_bounds__) is found. */
static void test_check_refuses_a_kernel_the_stage_does_not_have(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char path[512];
    make_stage(dir, "01-first", "lesson: the first\nbuilds-on: none\nchapter: c\n", 0);
    snprintf(path, sizeof path, "%s/01-first/render.cu", dir);
    test_write_file(path, "/* first */\n__global__ void render_kernel(int *x)\n{\n}\n");
    make_stage(dir, "p01-path",
               "lesson: the path\nbuilds-on: none\nchapter: c\nestimator: path\nprofile-kernel: intersect_kernel\n", 0);
    snprintf(path, sizeof path, "%s/p01-path/render.cu", dir);
    test_write_file(path, "/* path */\n#include \"walk.cuh\"\n");
    snprintf(path, sizeof path, "%s/p01-path/walk.cuh", dir);
    test_write_file(path, "__global__ void __launch_bounds__(128, 4)\nwalk_kernel(int *x)\n{\n}\n");
    struct command_result *r = run_shell("STAGES_DIR='%s' tools/stages check", dir);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->out, "");
    if (line_count(r->err) != 2 ||
        !strstr(r->err, "p01-path/manifest: profile-kernel: 'intersect_kernel' is no __global__ function of its "
                        "program (make show STAGE=p1): name one of its kernels\n") ||
        !strstr(r->err, "stages: 1 problem(s) in the manifests (above)\n"))
        fail_msg("expected the problem's line and the count; got: %s", r->err);
    /* The kernel it has: valid, and profile.sh would ask ncu for it. */
    snprintf(path, sizeof path, "%s/p01-path/manifest", dir);
    test_write_file(path, "lesson: the path\nbuilds-on: none\nchapter: c\nestimator: path\nprofile-kernel: walk_kernel\n");
    r = run_shell("STAGES_DIR='%s' tools/stages check", dir);
    if (r->exit_code != 0)
        fail_msg("tools/stages check: %s", r->err);
    r = run_shell("STAGES_DIR='%s' tools/stages get p1 profile-kernel && STAGES_DIR='%s' tools/stages get 1 profile-kernel",
                  dir, dir);
    assert_string_equal(r->out, "walk_kernel\nrender_kernel\n");
    /* No profile-kernel line: the default, render_kernel, which this program does not define. */
    test_write_file(path, "lesson: the path\nbuilds-on: none\nchapter: c\nestimator: path\n");
    r = run_shell("STAGES_DIR='%s' tools/stages check", dir);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "p01-path/manifest: no \"profile-kernel:\" line, and its program (make show "
                                   "STAGE=p1) has no __global__ function render_kernel, the default"));
    /* Not a kernel's name, not a launch number: refused by every reader, in one line. */
    test_write_file(path, "lesson: the path\nbuilds-on: none\nchapter: c\nestimator: path\nprofile-kernel: walk kernel\n");
    r = run_shell("STAGES_DIR='%s' tools/stages get p1 lesson", dir);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(line_count(r->err), 1);
    assert_non_null(strstr(r->err, "p01-path/manifest:5: profile-kernel: 'walk kernel' is not a kernel name"));
    test_write_file(path, "lesson: the path\nbuilds-on: none\nchapter: c\nestimator: path\nprofile-launch: first\n");
    r = run_shell("STAGES_DIR='%s' tools/stages get p1 lesson", dir);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(line_count(r->err), 1);
    assert_non_null(strstr(r->err, "p01-path/manifest:5: profile-launch: 'first' is not a launch number"));
    remove_temporary_folder(dir);
}

static void test_summary_of_a_committed_profile(void **state)
{
    (void)state;
    struct command_result *r = run_shell(SUMMARY " " COMMITTED "07f-register-cap.raw.csv --title T");
    assert_int_equal(r->exit_code, 0);
    assert_true(strncmp(r->out, "T\nkernel: render_kernel, grid (16, 16, 1) x block (32, 32, 1)\n", 60) == 0);
    /* 07f's lesson: a cap of 32 registers, full theoretical occupancy, and spills. */
    assert_non_null(strstr(r->out, "\nregisters per thread: 32\n"));
    assert_non_null(strstr(r->out, "\ntheoretical occupancy: 100.0%\n"));
    assert_null(strstr(r->out, "\ninstructions spilling registers: 0\n"));
    assert_non_null(strstr(r->out, "top stall reasons (warps stalled per issued instruction): "));
    assert_null(strstr(r->out, " selected ")); /* issuing is not a stall (not_selected is) */
    r = run_shell(SUMMARY " README.md");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "not the raw page of an Nsight Compute report"));
    r = run_shell(SUMMARY " /nonexistent.csv");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "/nonexistent.csv"));
}

/* tools/update_readmes.py's Profile block picks up a path-tracing stage's profile as it does a
 * main-track stage's (results/<gpu>/profiles/<stage>.raw.csv and .profile.txt, as tools/profile.sh
 * writes them): it names the kernel, and compares only with a profile of the same kernel. The
 * profiles are made up here from a committed main-track one, the kernel renamed. */
static void test_a_path_tracing_profile_in_the_readme_block(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    static const char *const made_up[][2] = {
        {"p08-megakernel", "path_kernel"},
        {"p09-path-regeneration", "persistent_kernel"},
        {"p09a-warp-regeneration", "persistent_kernel"},
    };
    for (size_t k = 0; k < sizeof made_up / sizeof *made_up; k++)
        assert_int_equal(run_shell("mkdir -p '%s/fake-gpu/profiles' && "
                                   "sed 's/render_kernel/%s/g' " COMMITTED "16-smaller-blocks.raw.csv >'%s/fake-gpu/profiles/%s.raw.csv' && "
                                   "echo '%s on Fake GPU 1: scenes/pt-benchmark.scene, launch 0 of %s (ncu 9.9.9)' "
                                   ">'%s/fake-gpu/profiles/%s.profile.txt'",
                                   folder, made_up[k][1], folder, made_up[k][0], made_up[k][0], made_up[k][1], folder,
                                   made_up[k][0])
                             ->exit_code,
                         0);
#define BLOCK_OF(stage) \
    "python3 -c 'import sys; sys.path.insert(0, \"tools\"); import update_readmes as u; " \
    "print(u.profile_block(\"" stage "\", sys.argv[1]))' '%s'"
    struct command_result *r = run_shell(BLOCK_OF("p09a-warp-regeneration"), folder);
    if (r->exit_code != 0)
        fail_msg("update_readmes.profile_block: %s", r->err);
    assert_non_null(strstr(r->out, "**Fake GPU 1**, scenes/pt-benchmark.scene, launch 0 of `persistent_kernel` ("));
    assert_non_null(strstr(r->out, "`make profile STAGE=p9a REFERENCE=1`"));
    assert_non_null(strstr(r->out, "| metric | p09-path-regeneration | p09a-warp-regeneration |\n"));
    assert_non_null(strstr(r->out, "| registers per thread | 38 | 38 |\n"));
    /* p09 builds on p08, whose profile is of another kernel: no comparison. */
    r = run_shell(BLOCK_OF("p09-path-regeneration"), folder);
    assert_non_null(strstr(r->out, "| registers per thread | – | 38 |\n"));
    assert_non_null(strstr(r->out, "(p08-megakernel has no profile of the same kernel, scene and launch to compare with.)"));
    /* A stage without a profile: how to make it, as on the main track. */
    r = run_shell(BLOCK_OF("p10-rgb8-frame"), folder);
    assert_string_equal(r->out, "No profile of this stage yet: run `make profile STAGE=p10 REFERENCE=1` on a GPU.\n");
#undef BLOCK_OF
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_missing_ncu_and_gpu),
        cmocka_unit_test(test_whole_run_with_a_fake_ncu),
        cmocka_unit_test(test_a_path_tracing_stage_with_a_fake_ncu),
        cmocka_unit_test(test_check_refuses_a_kernel_the_stage_does_not_have),
        cmocka_unit_test(test_summary_of_a_committed_profile),
        cmocka_unit_test(test_a_path_tracing_profile_in_the_readme_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
