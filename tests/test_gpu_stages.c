/* Every stage on a GPU: the same picture as stage 01 and as the CPU reference, and the report
 * telling the truth about copies and host memory. Skipped, with the reason, without a GPU. */
#include "test_support.h"

#include <glob.h>

#include "cpu_reference.h"

#define MAX_STAGES 32

static char stage_paths[MAX_STAGES][256];
static int stage_count;
static char folder[64];

static int setup(void **state)
{
    (void)state;
    char pattern[128];
    snprintf(pattern, sizeof pattern, "%s/[0-9][0-9]-*", test_build_dir());
    glob_t found;
    if (glob(pattern, 0, NULL, &found) == 0) {
        for (size_t k = 0; k < found.gl_pathc && stage_count < MAX_STAGES; ++k)
            if (!strstr(found.gl_pathv[k], ".resources.txt"))
                snprintf(stage_paths[stage_count++], 256, "%s", found.gl_pathv[k]);
        globfree(&found);
    }
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    return stage_count > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

static const char *stage_name(int k)
{
    const char *slash = strrchr(stage_paths[k], '/');
    return slash ? slash + 1 : stage_paths[k];
}

static struct image render_on_cpu(const char *scene_path)
{
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_load(scene_path, &scene, error, sizeof error), 0);
    struct image image;
    assert_int_equal(image_alloc(&image, scene.width, scene.height), 0);
    cpu_reference_render(&scene, scene.width, scene.height, 0, &image);
    scene_free(&scene);
    return image;
}

static struct image render_on_gpu(int k, const char *scene_path, const char *extra)
{
    char out[256];
    snprintf(out, sizeof out, "%s/%s.ppm", folder, stage_name(k));
    struct command_result *r =
        run_shell("%s --scene %s --output %s %s", stage_paths[k], scene_path, out, extra);
    if (r->exit_code != 0)
        print_message("# %s failed (%d): %s\n", stage_name(k), r->exit_code, r->err);
    assert_int_equal(r->exit_code, 0);
    struct image image;
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_read(out, &image, error, sizeof error), 0);
    return image;
}

/* Every stage: identical to stage 01, and within 0.01% of the CPU reference (goal: 0). */
static void same_picture(const char *scene_path)
{
    SKIP_WITHOUT_GPU();
    struct image reference = render_on_cpu(scene_path);
    struct image first = render_on_gpu(0, scene_path, "");
    for (int k = 0; k < stage_count; ++k) {
        struct image image = k ? render_on_gpu(k, scene_path, "") : first;
        struct image_difference to_cpu, to_first;
        assert_int_equal(image_compare(&reference, &image, &to_cpu), 0);
        assert_int_equal(image_compare(&first, &image, &to_first), 0);
        print_message("# %s on %s: %lld pixels differ from the CPU reference (largest %d), "
                      "%lld from %s\n",
                      stage_name(k), scene_path, to_cpu.differing_pixels,
                      to_cpu.largest_channel_difference, to_first.differing_pixels, stage_name(0));
        assert_true(to_cpu.differing_pixels * 10000 <= to_cpu.total_pixels);
        assert_int_equal(to_first.differing_pixels, 0);
        if (k)
            image_free(&image);
    }
    image_free(&first);
    image_free(&reference);
}

static void every_stage_renders_quick_scene_like_stage_01_and_the_cpu(void **state)
{
    (void)state;
    same_picture("scenes/quick.scene");
}

static void partial_blocks_render_right_too(void **state)
{
    (void)state;
    same_picture("scenes/odd-size.scene");
}

/* The value of one metric in a stage's --csv output. */
static double metric(const char *csv, const char *name, char *text_value, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    const char *at = strstr(csv, key);
    if (!at) {
        print_message("# metric %s missing\n", name);
        fail();
    }
    at += strlen(key);
    if (text_value)
        snprintf(text_value, size, "%.*s", (int)strcspn(at, ","), at);
    return strtod(at, NULL);
}

static void reports_tell_copies_and_host_memory(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const double frame_bytes = 512.0 * 512.0 * 12.0;
    for (int k = 0; k < stage_count; ++k) {
        struct command_result *r = run_shell("%s --scene scenes/quick.scene --csv", stage_paths[k]);
        assert_int_equal(r->exit_code, 0);
        int number = atoi(stage_name(k));
        char host_memory_column[64];
        snprintf(host_memory_column, sizeof host_memory_column, ",%s,", number >= 5 ? "pinned" : "pageable");
        assert_non_null(strstr(r->out, host_memory_column));
        double up = metric(r->out, "bytes_host_to_device", NULL, 0);
        double down = metric(r->out, "bytes_device_to_host", NULL, 0);
        print_message("# %s: %.0f bytes up, %.0f down\n", stage_name(k), up, down);
        assert_true(down == frame_bytes);
        if (number >= 6)
            assert_true(up < 4096); /* the spheres, light and camera only */
        else
            assert_true(up >= frame_bytes);
        double sum = 0;
        const char *phases[] = {"host_allocation", "device_allocation", "host_to_device", "kernel",
                                "device_to_host",  "device_free",       "host_free"};
        for (int p = 0; p < 7; ++p)
            sum += metric(r->out, phases[p], NULL, 0);
        assert_true(metric(r->out, "total", NULL, 0) == sum);
        assert_true(metric(r->out, "kernel_events", NULL, 0) > 0);
        assert_true(metric(r->out, "rays_traced", NULL, 0) >= 512.0 * 512.0);
        double shared = metric(r->out, "shared_memory", NULL, 0);
        if (number == 7)
            assert_true(shared >= 19 * 28);
        else
            assert_true(shared == 0);
    }
}

static void block_size_can_be_swept_from_stage_03(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    for (int k = 0; k < stage_count; ++k) {
        if (atoi(stage_name(k)) < 3)
            continue;
        struct image base = render_on_gpu(k, "scenes/odd-size.scene", "");
        const char *blocks[] = {"--block 8x8", "--block 32x4", "--block 7x13"};
        for (int b = 0; b < 3; ++b) {
            struct image image = render_on_gpu(k, "scenes/odd-size.scene", blocks[b]);
            struct image_difference diff;
            assert_int_equal(image_compare(&base, &image, &diff), 0);
            assert_int_equal(diff.differing_pixels, 0);
            image_free(&image);
        }
        image_free(&base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_renders_quick_scene_like_stage_01_and_the_cpu),
        cmocka_unit_test(partial_blocks_render_right_too),
        cmocka_unit_test(reports_tell_copies_and_host_memory),
        cmocka_unit_test(block_size_can_be_swept_from_stage_03),
    };
    return cmocka_run_group_tests_name("stages on the GPU", tests, setup, teardown);
}
