/* Run from anywhere (issue 12): a program started outside the repository's root finds its
 * default scene beside the build folder it lives in, and says which scene it rendered. */
#include "test_support.h"

#include <limits.h>

static char repository[PATH_MAX];

static int setup(void **state)
{
    (void)state;
    return getcwd(repository, sizeof repository) ? 0 : -1;
}

/* build/<program> started from an empty folder, no --scene: the scene under the repository. */
static struct command_result *run_elsewhere(const char *folder, const char *program,
                                            const char *arguments)
{
    const char *build = test_build_dir();
    return run_shell("cd '%s' && '%s%s%s/%s' %s", folder, build[0] == '/' ? "" : repository,
                     build[0] == '/' ? "" : "/", build, program, arguments);
}

static void cpu_reference_finds_its_default_scene(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r = run_elsewhere(folder, "cpu-reference", "--size 16x16 --output x.ppm");
    if (r->exit_code != 0)
        print_message("stderr: %s\n", r->err);
    assert_int_equal(r->exit_code, 0);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "cpu-reference: %s/scenes/benchmark.scene, 16x16, 19 spheres",
             repository);
    if (!strstr(r->out, expected))
        print_message("expected '%s' in: %s\n", expected, r->out);
    assert_non_null(strstr(r->out, expected));
    remove_temporary_folder(folder);
}

static void pt_reference_finds_its_default_scene(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r = run_elsewhere(folder, "pt-reference", "--size 8x8 --output x.ppm");
    assert_int_equal(r->exit_code, 0);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "pt-reference: %s/scenes/pt-benchmark.scene, 8x8, 21 spheres",
             repository);
    if (!strstr(r->out, expected))
        print_message("expected '%s' in: %s\n", expected, r->out);
    assert_non_null(strstr(r->out, expected));
    remove_temporary_folder(folder);
}

/* A stage gets past the scene either way; on a GPU its report names the scene. Without one it
 * stops at the GPU, which it only reaches once the scene has loaded. */
static void a_stage_finds_its_default_scene(void **state)
{
    (void)state;
    char reason[512];
    int gpu = gpu_available(reason, sizeof reason); /* first: it reuses run_shell's result */
    char *folder = make_temporary_folder();
    struct command_result *r = run_elsewhere(folder, "01-base", "--size 16x16");
    if (gpu) {
        assert_int_equal(r->exit_code, 0);
        char expected[PATH_MAX + 32];
        snprintf(expected, sizeof expected, "scene %s/scenes/benchmark.scene\n", repository);
        if (!strstr(r->out, expected))
            print_message("expected '%s' in: %s\n", expected, r->out);
        assert_non_null(strstr(r->out, expected));
    } else {
        assert_int_equal(r->exit_code, 2);
        assert_null(strstr(r->err, "scene"));
        assert_non_null(strstr(r->err, "GPU"));
    }
    remove_temporary_folder(folder);
}

/* An explicit --scene is taken as given, relative to the current folder: no silent fallback. */
static void a_given_scene_is_not_looked_up_elsewhere(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r =
        run_elsewhere(folder, "cpu-reference", "--scene scenes/quick.scene --output x.ppm");
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "scenes/quick.scene"));
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_reference_finds_its_default_scene),
        cmocka_unit_test(pt_reference_finds_its_default_scene),
        cmocka_unit_test(a_stage_finds_its_default_scene),
        cmocka_unit_test(a_given_scene_is_not_looked_up_elsewhere),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
