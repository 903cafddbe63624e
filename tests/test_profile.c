/* Tests of tools/profile.sh (`make profile`) and tools/runner/profile_summary.py that need no GPU:
 * the
 * arguments, a missing ncu, a missing GPU (one line, exit status 2), the whole run with a fake
 * ncu that replays a committed report's raw metrics (which files it writes, which launch and
 * scene it asks for), and the summary of a committed profile. Run from the repository root. */
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

static void run_with_fakes(const char *stage_id, const char *stage, const char *expected_title,
                           const char *expected_words)
{
    char *folder = make_temporary_folder();
    char raw[256], path[512], text[TEST_OUTPUT_BYTES];
    snprintf(raw, sizeof raw, "%s/%s.raw.csv", COMMITTED, stage);
    write_fakes(folder, raw);
    struct command_result *r =
        run_shell(CLEAN_ENV " CUDA_ARCH=90 NCU='%s/ncu' NVIDIA_SMI='%s/nvidia-smi' " TOOL " --out '%s/out' %s",
                  folder, folder, folder, stage_id);
    if (r->exit_code != 0)
        fail_msg("exit status %d; stderr: %s", r->exit_code, r->err);
    /* The summary on stdout and in the .profile.txt, its title naming the GPU, scene and launch. */
    if (strncmp(r->out, expected_title, strlen(expected_title)) != 0)
        fail_msg("expected the summary to start with '%s', got: %.300s", expected_title, r->out);
    snprintf(path, sizeof path, "%s/out/%s.profile.txt", folder, stage);
    test_read_file(path, text, sizeof text);
    assert_string_equal(text, r->out);
    /* The report, its gzip copy (what the repository keeps) and the raw metrics. */
    snprintf(path, sizeof path, "%s/out/%s.ncu-rep", folder, stage);
    assert_int_equal(access(path, F_OK), 0);
    r = run_shell("gzip -dc '%s/out/%s.ncu-rep.gz'", folder, stage);
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
    assert_non_null(strstr(text, "--kernel-name render_kernel"));
    if (!strstr(text, expected_words))
        fail_msg("ncu was not asked for '%s': %s", expected_words, text);
    remove_temporary_folder(folder);
}

static void test_whole_run_with_a_fake_ncu(void **state)
{
    (void)state;
    run_with_fakes("7", "07-shared-spheres",
                   "07-shared-spheres on Fake GPU 1: scenes/quick.scene, launch 0 of render_kernel (ncu 9.9.9)\n",
                   "--launch-skip 0 --launch-count 1");
    /* A stage that renders in bands: band 10 of the benchmark scene. */
    run_with_fakes("16", "16-smaller-blocks",
                   "16-smaller-blocks on Fake GPU 1: scenes/benchmark.scene, launch 10 of render_kernel",
                   "--launch-skip 10 --launch-count 1");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_missing_ncu_and_gpu),
        cmocka_unit_test(test_whole_run_with_a_fake_ncu),
        cmocka_unit_test(test_summary_of_a_committed_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
