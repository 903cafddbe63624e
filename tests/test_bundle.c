/* Results students hand in: tools/bundle-results.sh bundles a campaign folder with its
 * environment, tools/check-bundle.py checks a bundle (every timed stage's image verified, the runs
 * complete and all ended well, the GPU named) and prints a page of medians beside the reference
 * GPUs'. Shown on a made-up campaign (two stages, three runs each, on "Fake GPU") and a made-up
 * reference, then with one thing wrong at a time. No GPU needed. Run from the repository root. */
#include "test_support.h"

#define BUNDLE "NVIDIA_SMI=false tools/bundle-results.sh"
#define CHECK "python3 tools/check-bundle.py"
#define HEADER "order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,image"

/* A campaign folder DIR/fake-gpu: RUNS runs of 01-base (total 2,000 µs a run + 100 x run,
 * kernel_events half that) and of 02-static-registers (runs_02 runs, each 1,000 µs less), the
 * last run of 02 with STATUS, env.txt naming GPU_LINE, verify.txt with VERIFY_02 for stage 02. */
static void fake_campaign(const char *dir, int runs_02, const char *status, const char *gpu_line,
                          const char *verify_02)
{
    assert_int_equal(run_shell("rm -rf '%s/fake-gpu' && mkdir -p '%s/fake-gpu' && cd '%s/fake-gpu' && "
                               "{ echo '" HEADER "'; for r in 1 2 3; do "
                               "echo \"1,$r,01-base,h,Fake GPU,GPU-1,8192,8192,19,16x16,pageable,total,$((2000 + 100 * r)),us,ok,\"; "
                               "echo \"1,$r,01-base,h,Fake GPU,GPU-1,8192,8192,19,16x16,pageable,kernel_events,$((1000 + 50 * r)),us,ok,\"; "
                               "[ $r -le %d ] || continue; s=ok; [ $r -lt %d ] || s='%s'; "
                               "echo \"2,$r,02-static-registers,h,Fake GPU,GPU-1,8192,8192,19,16x16,pageable,total,$((1000 + 100 * r)),us,$s,\"; "
                               "done; } | gzip > runs.csv.gz && "
                               "printf 'date (UTC): 2026-01-01T00:00:00Z\\ncommand: ./run.sh --runs 3\\n%s' > env.txt && "
                               "printf '# verification on scenes/quick.scene\\n01-base: ok: differing pixels: 0\\n"
                               "02-static-registers: %s\\n' > verify.txt",
                               dir, dir, dir, runs_02, runs_02, status, gpu_line, verify_02)->exit_code, 0);
}

/* A reference folder DIR/ref/gpu-a/summary.csv: 01-base's total median 1,050 µs. */
static void fake_reference(const char *dir)
{
    char path[512];
    assert_int_equal(run_shell("mkdir -p '%s/ref/gpu-a'", dir)->exit_code, 0);
    snprintf(path, sizeof path, "%s/ref/gpu-a/summary.csv", dir);
    test_write_file(path, "stage,metric,unit,n,mean,median,std,min,max\n"
                          "01-base,total,us,3,1050,1050,0,1050,1050\n"
                          "01-base,kernel_events,us,3,525,525,0,525,525\n");
}

static struct command_result *bundle_and_check(const char *dir)
{
    struct command_result *r = run_shell(BUNDLE " --name ada --out '%s/b.tar.gz' '%s/fake-gpu'", dir, dir);
    if (r->exit_code != 0)
        fail_msg("bundle-results.sh: status %d: %s", r->exit_code, r->err);
    return run_shell(CHECK " --reference '%s/ref' '%s/b.tar.gz'", dir, dir);
}

static void a_complete_campaign_passes_with_its_page(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_campaign(dir, 3, "ok", "gpu: 0, Fake GPU, GPU-1\\n", "ok: differing pixels: 0");
    fake_reference(dir);
    /* The archive: one folder, the campaign's files and bundle.txt with who, the revision, the GPU. */
    struct command_result *r = run_shell(BUNDLE " --name ada --out '%s/b.tar.gz' '%s/fake-gpu' && "
                                         "tar -xzOf '%s/b.tar.gz' fake-gpu/bundle.txt", dir, dir, dir);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "name: ada\n"));
    assert_non_null(strstr(r->out, "revision: "));
    assert_non_null(strstr(r->out, "gpu: 0, Fake GPU, GPU-1\n"));
    r = run_shell("tar -tzf '%s/b.tar.gz' | sort | tr '\\n' ' '", dir);
    assert_string_equal(r->out, "fake-gpu/ fake-gpu/bundle.txt fake-gpu/env.txt fake-gpu/runs.csv.gz "
                                "fake-gpu/verify.txt ");
    r = bundle_and_check(dir);
    if (r->exit_code != 0)
        fail_msg("check-bundle.py: status %d: %s", r->exit_code, r->err);
    assert_non_null(strstr(r->err, "complete: 2 stages timed and verified on Fake GPU"));
    assert_non_null(strstr(r->out, "# fake-gpu: ada\n"));
    assert_non_null(strstr(r->out, "GPU: Fake GPU; campaign: ./run.sh --runs 3\n"));
    assert_non_null(strstr(r->out, "| stage | total | kernel | gpu-a total | gpu-a kernel |\n"));
    /* Medians 2,200 and 1,100 µs; the reference's 1,050 and 525: twice and more. */
    assert_non_null(strstr(r->out, "| 01-base | 2.20 | 1.10 | 1.05 (2.10x) | 0.53 (2.10x) |\n"));
    assert_non_null(strstr(r->out, "| 02-static-registers | 1.20 | – | – | – |\n"));
    assert_true(line_count(r->out) <= 60);
    remove_temporary_folder(dir);
}

static void what_is_missing_is_named(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_reference(dir);
    static const struct {
        int runs_02;
        const char *status, *gpu_line, *verify_02, *expected;
    } bad[] = {
        {3, "ok", "gpu: 0, Fake GPU, GPU-1\\n", "FAILED: differing pixels: 12",
         "02-static-registers: its image FAILED verification"},
        {3, "timeout", "gpu: 0, Fake GPU, GPU-1\\n", "ok: differing pixels: 0",
         "a failed run: 02-static-registers run 3 (timeout)"},
        {2, "ok", "gpu: 0, Fake GPU, GPU-1\\n", "ok: differing pixels: 0",
         "runs incomplete: 3 runs of most stages, fewer of 02-static-registers (2)"},
        {3, "ok", "", "ok: differing pixels: 0", "the GPU is not named"},
        {3, "ok", "gpu: 0, Other GPU, GPU-2\\n", "ok: differing pixels: 0",
         "the runs were timed on Fake GPU, but bundle.txt and env.txt name 0, Other GPU, GPU-2"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        fake_campaign(dir, bad[k].runs_02, bad[k].status, bad[k].gpu_line, bad[k].verify_02);
        struct command_result *r = bundle_and_check(dir);
        if (r->exit_code != 1 || !strstr(r->err, bad[k].expected))
            fail_msg("campaign %zu: expected '%s'; got status %d: %s", k, bad[k].expected, r->exit_code,
                     r->err);
        assert_null(strstr(r->err, "verified on"));
    }
    /* A stage timed that was never verified. */
    fake_campaign(dir, 3, "ok", "gpu: 0, Fake GPU, GPU-1\\n", "ok: x");
    assert_int_equal(run_shell("sed -i '/^02-/d' '%s/fake-gpu/verify.txt'", dir)->exit_code, 0);
    struct command_result *r = bundle_and_check(dir);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "02-static-registers: timed, but its image was never verified"));
    /* What is no bundle, and a folder with no campaign. */
    char path[512];
    snprintf(path, sizeof path, "%s/not.tar.gz", dir);
    test_write_file(path, "plain text\n");
    r = run_shell(CHECK " '%s'", path);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "not a bundle"));
    r = run_shell("mkdir -p '%s/empty' && " BUNDLE " --out '%s/e.tar.gz' '%s/empty'", dir, dir, dir);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(line_count(r->err), 1);
    assert_non_null(strstr(r->err, "holds no runs"));
    remove_temporary_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_complete_campaign_passes_with_its_page),
        cmocka_unit_test(what_is_missing_is_named),
    };
    return cmocka_run_group_tests_name("bundles of results", tests, NULL, NULL);
}
