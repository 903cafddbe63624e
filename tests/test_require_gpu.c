/* A test that needs a GPU skips only where it cannot pass by accident (tests/test_support.h's
 * gpu_available() and gpu_required()): on a machine that shows no GPU, with REQUIRE_GPU unset. With
 * REQUIRE_GPU=1, or on a machine that shows a GPU (a device file, or one that nvidia-smi -L lists)
 * whose build/01-base fails, it fails instead, in one line saying why: a GPU machine whose driver
 * is broken must not finish make test green with skips.
 * To see it, this program runs itself as a made-up GPU test (--needs-a-gpu: one test that calls
 * SKIP_WITHOUT_GPU(), then passes; --skipped-by-its-tool: one that skip_without_gpu() skips, as
 * tools/difftest.sh's "no NVIDIA GPU here" does) in a made-up world: a build folder whose 01-base
 * fails as a stage does without a GPU (or works), and a machine that shows a GPU or none
 * (TEST_NVIDIA_DEVICES, NVIDIA_SMI), whatever this machine is. No GPU needed. Run from the
 * repository root. */
#include "test_support.h"

static const char *self;  /* this program, as it was started (argv[0]) */
static char folder[256];  /* the made-up world: build/, dev/, nvidia-smi */
static char world[4096];  /* the environment of the made-up world: no GPU shown, REQUIRE_GPU unset */

#define NO_GPU_LINE "01-base: error: no CUDA-capable GPU found (a made-up stage)"

/* ---- The made-up GPU tests (run by the tests below, not by make test) ---------------------- */

static void a_test_that_needs_a_gpu(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    print_message("# the GPU works\n");
}

static void a_test_its_tool_skipped(void **state)
{
    (void)state;
    skip_without_gpu("difftest: skipped: no NVIDIA GPU here (nvidia-smi lists none)");
}

/* ---- The tests ----------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    char path[512];
    if (sh("mkdir -p '%s/build' '%s/dev'", folder, folder) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/build/01-base", folder);
    test_write_file(path, "#!/bin/sh\necho '" NO_GPU_LINE "' >&2\necho 'a second line' >&2\nexit 2\n");
    snprintf(path, sizeof path, "%s/nvidia-smi", folder);
    test_write_file(path, "#!/bin/sh\n[ \"$1\" = -L ] && echo 'GPU 0: Made-up GPU (UUID: GPU-made-up-0)'\n");
    /* The made-up world, whatever this machine is and whatever make test was given: device files
     * looked for in an empty folder, nvidia-smi listing none, no REQUIRE_GPU, no hidden GPUs. */
    snprintf(world, sizeof world,
             "env -u REQUIRE_GPU -u CUDA_VISIBLE_DEVICES BUILD='%s/build' "
             "TEST_NVIDIA_DEVICES='%s/dev/nvidia[0-9]*' NVIDIA_SMI=false CMOCKA_MESSAGE_OUTPUT=TAP",
             folder, folder);
    return sh("chmod +x '%s/build/01-base' '%s/nvidia-smi'", folder, folder) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

/* Runs this program as the made-up GPU test (OPTION) in the made-up world, with the variables of
 * CHANGES (VAR=value ..., "" for none) on top. */
static struct command_result *gpu_test(const char *option, const char *changes)
{
    return run_shell("%s %s '%s' %s", world, changes, self, option);
}

/* The run skipped its test: "not ok 1 # SKIP", exit status 0. */
static void assert_skipped(const struct command_result *r, const char *what)
{
    if (r->exit_code != 0 || !strstr(r->out, "\nnot ok 1 # SKIP"))
        fail_msg("%s: not skipped (exit status %d):\n%s%s", what, r->exit_code, r->out, r->err);
}

/* The run failed its test with the one line why: "not ok 1 - NAME" on stdout, the line on stderr
 * (where cmocka puts a failure's message). */
static void assert_failed_saying(const struct command_result *r, const char *what, const char *why)
{
    if (r->exit_code == 0 || !strstr(r->out, "\nnot ok 1 - ") || strstr(r->out, "# SKIP") ||
        !strstr(r->err, why))
        fail_msg("%s: no failure saying '%s' (exit status %d):\n%s%s", what, why, r->exit_code, r->out, r->err);
    print_message("# %s: %.*s\n", what, (int)strcspn(why, "\n"), why);
}

static void without_a_gpu_a_gpu_test_skips(void **state)
{
    (void)state;
    struct command_result *r = gpu_test("--needs-a-gpu", "");
    assert_skipped(r, "no GPU shown");
    assert_non_null(strstr(r->out, "# skipped: no GPU here (" NO_GPU_LINE ")\n"));
    assert_skipped(gpu_test("--needs-a-gpu", "REQUIRE_GPU=0"), "REQUIRE_GPU=0");
    assert_skipped(gpu_test("--skipped-by-its-tool", ""), "its tool skipped it");
}

static void require_gpu_turns_the_skip_into_a_failure(void **state)
{
    (void)state;
    char why[1024];
    snprintf(why, sizeof why, "REQUIRE_GPU=1 but %s/build/01-base failed: " NO_GPU_LINE "\n", folder);
    assert_failed_saying(gpu_test("--needs-a-gpu", "REQUIRE_GPU=1"), "REQUIRE_GPU=1", why);
    assert_failed_saying(gpu_test("--skipped-by-its-tool", "REQUIRE_GPU=1"), "REQUIRE_GPU=1, its tool skipping",
                         "REQUIRE_GPU=1 but the test would skip: difftest: skipped: no NVIDIA GPU here "
                         "(nvidia-smi lists none)\n");
    /* A 01-base that fails saying nothing is named by its exit status. */
    char changes[512];
    snprintf(changes, sizeof changes, "REQUIRE_GPU=1 BUILD='%s/silent'", folder);
    assert_int_equal(sh("mkdir -p '%s/silent' && printf '#!/bin/sh\\nexit 3\\n' > '%s/silent/01-base' && "
                        "chmod +x '%s/silent/01-base'", folder, folder, folder),
                     0);
    snprintf(why, sizeof why, "REQUIRE_GPU=1 but %s/silent/01-base failed: exit status 3\n", folder);
    assert_failed_saying(gpu_test("--needs-a-gpu", changes), "REQUIRE_GPU=1, 01-base silent", why);
    /* Where the GPU works, REQUIRE_GPU=1 changes nothing: the test runs and passes. */
    snprintf(changes, sizeof changes, "REQUIRE_GPU=1 BUILD='%s/working'", folder);
    assert_int_equal(sh("mkdir -p '%s/working' && printf '#!/bin/sh\\nexit 0\\n' > '%s/working/01-base' && "
                        "chmod +x '%s/working/01-base'", folder, folder, folder),
                     0);
    struct command_result *r = gpu_test("--needs-a-gpu", changes);
    if (r->exit_code != 0 || !strstr(r->out, "\nok 1 - a_test_that_needs_a_gpu\n"))
        fail_msg("a working GPU under REQUIRE_GPU=1 (exit status %d):\n%s%s", r->exit_code, r->out, r->err);
}

/* A GPU the machine shows, whose 01-base fails, is a GPU that does not work: the test fails even
 * without REQUIRE_GPU; hidden on purpose (CUDA_VISIBLE_DEVICES set empty), it skips. */
static void a_gpu_shown_that_does_not_work_fails(void **state)
{
    (void)state;
    char why[1024], changes[512];
    assert_int_equal(sh("mkdir -p '%s/shown' && touch '%s/shown/nvidia0'", folder, folder), 0);
    snprintf(changes, sizeof changes, "TEST_NVIDIA_DEVICES='%s/shown/nvidia[0-9]*'", folder);
    snprintf(why, sizeof why, "an NVIDIA GPU is here (%s/shown/nvidia0) but %s/build/01-base failed: " NO_GPU_LINE "\n",
             folder, folder);
    assert_failed_saying(gpu_test("--needs-a-gpu", changes), "a device file", why);
    snprintf(changes, sizeof changes, "NVIDIA_SMI='%s/nvidia-smi'", folder);
    snprintf(why, sizeof why,
             "an NVIDIA GPU is here (nvidia-smi -L: GPU 0: Made-up GPU (UUID: GPU-made-up-0)) but %s/build/01-base "
             "failed: " NO_GPU_LINE "\n",
             folder);
    assert_failed_saying(gpu_test("--needs-a-gpu", changes), "nvidia-smi -L", why);
    snprintf(changes, sizeof changes, "CUDA_VISIBLE_DEVICES= TEST_NVIDIA_DEVICES='%s/shown/nvidia[0-9]*'", folder);
    assert_skipped(gpu_test("--needs-a-gpu", changes), "a device file, hidden by CUDA_VISIBLE_DEVICES=");
}

/* make test passes REQUIRE_GPU on to the tests, as it does TEST_JOBS; tests/run-tests.sh takes
 * 0 or 1 only. */
static void make_test_passes_it_on(void **state)
{
    (void)state;
    /* (The recipe's lines joined: it runs over two.) */
    struct command_result *r = run_shell(MAKE " -n test REQUIRE_GPU=1 CUDA_ARCH=90 | tr '\\\\\\n' '  ' | "
                                         "grep -o 'REQUIRE_GPU=1 *tests/run-tests.sh'");
    if (r->exit_code != 0)
        fail_msg("make -n test REQUIRE_GPU=1 runs tests/run-tests.sh without it: %s", r->err);
    r = run_shell("REQUIRE_GPU=yes tests/run-tests.sh /bin/true");
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "run-tests: REQUIRE_GPU must be 0 or 1, got 'yes'\n");
}

int main(int argc, char **argv)
{
    self = argv[0];
    if (argc == 2 && strcmp(argv[1], "--needs-a-gpu") == 0) {
        const struct CMUnitTest made_up[] = {cmocka_unit_test(a_test_that_needs_a_gpu)};
        return cmocka_run_group_tests_name("a made-up GPU test", made_up, NULL, NULL);
    }
    if (argc == 2 && strcmp(argv[1], "--skipped-by-its-tool") == 0) {
        const struct CMUnitTest made_up[] = {cmocka_unit_test(a_test_its_tool_skipped)};
        return cmocka_run_group_tests_name("a made-up GPU test", made_up, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_a_gpu_a_gpu_test_skips),
        cmocka_unit_test(require_gpu_turns_the_skip_into_a_failure),
        cmocka_unit_test(a_gpu_shown_that_does_not_work_fails),
        cmocka_unit_test(make_test_passes_it_on),
    };
    return cmocka_run_group_tests_name("REQUIRE_GPU and a GPU that does not work", tests, setup, teardown);
}
