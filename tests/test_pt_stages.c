/* Every stage of the path-tracing track (build/pNN-name and side stages build/pNNx-name; not the
 * kernel benchmarks build/<stage>-bench) on a GPU: the CPU reference's image of
 * scenes/pt-quick.scene (tests/golden/pt-quick.png) to the last pixel, the CPU reference's ray
 * count, and a report that tells where the samples are accumulated. Skipped, with the reason,
 * without a GPU (the --help checks run anyway). Run from the repository root. */
#include "test_support.h"

#include <glob.h>

#include "image.h"
#include "pathtrace/pt_reference.h"
#include "pathtrace/pt_scene.h"

#define MAX_STAGES 64
#define QUICK_SCENE "scenes/pt-quick.scene"
#define GOLDEN "tests/golden/pt-quick.png"
#define QUICK_RAYS 257567.0 /* build/pt-reference on pt-quick (tests/test_pt_reference.c) */
#define QUICK_SIDE 128
#define QUICK_SAMPLES 8
/* From this stage on the samples are added up on the device: no host_accumulate (nor
 * frame_copy) part in the kernel phase, and only the sums come back, once (width*height*3
 * 64-bit integers). Before it, every frame is copied back and added on the host. */
#define FIRST_DEVICE_ACCUMULATION_STAGE 6

static char stage_paths[MAX_STAGES][256];
static int stage_count;
static char folder[64];

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static int is_stage(const char *path)
{
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t length = strlen(name);
    /* not build/p01-base.resources.txt, not build/p01-base-bench */
    return !strchr(name, '.') && !(length > 6 && strcmp(name + length - 6, "-bench") == 0) &&
           access(path, X_OK) == 0;
}

static int setup(void **state)
{
    (void)state;
    const char *patterns[] = {"p[0-9][0-9]-*", "p[0-9][0-9][a-z]-*"};
    for (int p = 0; p < 2; ++p) {
        char pattern[128];
        snprintf(pattern, sizeof pattern, "%s/%s", test_build_dir(), patterns[p]);
        glob_t found;
        if (glob(pattern, 0, NULL, &found) == 0) {
            for (size_t k = 0; k < found.gl_pathc && stage_count < MAX_STAGES; ++k)
                if (is_stage(found.gl_pathv[k]))
                    snprintf(stage_paths[stage_count++], 256, "%s", found.gl_pathv[k]);
            globfree(&found);
        }
    }
    qsort(stage_paths, (size_t)stage_count, sizeof stage_paths[0], by_name);
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    if (stage_count == 0)
        fprintf(stderr, "no path-tracing stage in %s/ (make stages)\n", test_build_dir());
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

/* 5 for p05-soa-samples and p05a-split-channels. */
static int stage_number(int k)
{
    return atoi(stage_name(k) + 1);
}

/* The value of one metric in a --csv report (the line's "metric,value" columns). */
static double metric(const char *csv, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    const char *at = strstr(csv, key);
    if (!at)
        fail_msg("metric %s missing from:\n%.2000s", name, csv);
    return strtod(at + strlen(key), NULL);
}

static int has_metric(const char *csv, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(csv, key) != NULL;
}

/* Runs stage k with the extra words and --csv, writing its image to folder/NAME-tag.png; the
 * report is in the returned result's out. */
static struct command_result *run_stage(int k, const char *extra, const char *tag,
                                        struct image *image)
{
    char out[256];
    snprintf(out, sizeof out, "%s/%s-%s.png", folder, stage_name(k), tag);
    struct command_result *r =
        run_shell("%s --scene " QUICK_SCENE " --csv --output %s %s", stage_paths[k], out, extra);
    if (r->exit_code != 0)
        fail_msg("%s %s: exit status %d: %.2000s", stage_name(k), extra, r->exit_code, r->err);
    char error[IMAGE_ERROR_BYTES];
    if (image_read(out, image, error, sizeof error))
        fail_msg("%s", error);
    return r;
}

static long long differing_pixels(int k, const struct image *expected, const struct image *image)
{
    struct image_difference diff;
    assert_int_equal(image_compare(expected, image, &diff), 0);
    if (diff.differing_pixels)
        print_message("# %s: %lld of %lld pixels differ (largest channel difference %d)\n",
                      stage_name(k), diff.differing_pixels, diff.total_pixels,
                      diff.largest_channel_difference);
    return diff.differing_pixels;
}

/* ---- Tests --------------------------------------------------------------------------------- */

static void every_stage_renders_the_golden_image_with_the_reference_ray_count(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    struct image golden;
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_read(GOLDEN, &golden, error, sizeof error), 0);
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        struct image image;
        struct command_result *r = run_stage(k, "", "quick", &image);
        double rays = metric(r->out, "rays_traced");
        double samples = metric(r->out, "samples_per_pixel");
        long long differing = differing_pixels(k, &golden, &image);
        print_message("# %s: %lld pixels differ, %.0f rays, %.0f samples per pixel\n",
                      stage_name(k), differing, rays, samples);
        if (differing != 0 || rays != QUICK_RAYS || samples != QUICK_SAMPLES ||
            image.width != QUICK_SIDE || image.height != QUICK_SIDE) {
            print_error("%s: expected 0 differing pixels, %.0f rays, %d samples per pixel\n",
                        stage_name(k), QUICK_RAYS, QUICK_SAMPLES);
            ++failures;
        }
        image_free(&image);
    }
    image_free(&golden);
    assert_int_equal(failures, 0);
}

/* p01 to p05a copy each frame back and add it up on the host (a host_accumulate part of the
 * kernel phase, and at least a float RGB per pixel per frame copied back); from p06 the sums
 * stay on the device until the end: no host_accumulate, and exactly width*height*3*8 bytes back. */
static void reports_tell_where_samples_are_accumulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const double pixels = (double)QUICK_SIDE * QUICK_SIDE;
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        struct image image;
        struct command_result *r = run_stage(k, "", "report", &image);
        image_free(&image);
        double down = metric(r->out, "bytes_device_to_host");
        int on_device = stage_number(k) >= FIRST_DEVICE_ACCUMULATION_STAGE;
        int accumulates_on_host = has_metric(r->out, "host_accumulate");
        double host_us = accumulates_on_host ? metric(r->out, "host_accumulate") : 0;
        print_message("# %s: host_accumulate %s (%.0f us), %.0f bytes device to host\n",
                      stage_name(k), accumulates_on_host ? "reported" : "absent", host_us, down);
        int ok;
        if (on_device)
            ok = !accumulates_on_host && !has_metric(r->out, "frame_copy") &&
                 down == pixels * 3 * 8;
        else
            ok = accumulates_on_host && host_us > 0 && has_metric(r->out, "frame_copy") &&
                 down >= pixels * 12 * QUICK_SAMPLES;
        if (!ok) {
            print_error("%s: expected %s\n", stage_name(k),
                        on_device ? "no host_accumulate or frame_copy part, 393216 bytes back"
                                  : "a positive host_accumulate part and a frame_copy part, at "
                                    "least 12 bytes per pixel per frame back");
            ++failures;
        }
        assert_true(metric(r->out, "kernel_events") > 0);
        assert_true(metric(r->out, "samples_per_second") > 0);
    }
    assert_int_equal(failures, 0);
}

/* --samples and --size override the scene's: the report says 3 samples per pixel, and the image
 * and the ray count are the CPU reference's at that size and count. */
static void samples_and_size_override_the_scene(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const int width = 40, height = 24, samples = 3;
    struct pt_scene scene;
    char error[512];
    assert_int_equal(pt_scene_load(QUICK_SCENE, &scene, error, sizeof error), 0);
    struct pt_world world = pt_scene_world(&scene, width, height);
    unsigned long long *sums = calloc((size_t)width * height * 3, sizeof *sums);
    assert_non_null(sums);
    double rays = (double)pt_reference_render(&world, samples, 0, sums);
    struct image expected;
    assert_int_equal(image_alloc(&expected, width, height), 0);
    for (size_t c = 0; c < (size_t)width * height * 3; ++c)
        expected.rgb[c] = pt_pixel_channel(sums[c], samples);
    free(sums);
    pt_scene_free(&scene);
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        struct image image;
        struct command_result *r = run_stage(k, "--samples 3 --size 40x24", "small", &image);
        double reported = metric(r->out, "samples_per_pixel");
        double traced = metric(r->out, "rays_traced");
        long long differing = differing_pixels(k, &expected, &image);
        print_message("# %s --samples 3 --size 40x24: %.0f samples per pixel, %.0f rays (CPU %.0f), "
                      "%lld pixels differ\n",
                      stage_name(k), reported, traced, rays, differing);
        if (reported != samples || traced != rays || differing != 0 ||
            strstr(r->out, ",40,24,") == NULL)
            ++failures;
        image_free(&image);
    }
    image_free(&expected);
    assert_int_equal(failures, 0);
}

/* Whether the stage has a kernel benchmark (build/<stage>-bench): only the stages with a kernel
 * per segment (p01-p07) do; the others trace whole paths in one kernel. */
static int has_bench(int k)
{
    char bench[300];
    snprintf(bench, sizeof bench, "%s-bench", stage_paths[k]);
    return access(bench, X_OK) == 0;
}

/* Needs no GPU: every stage lists the track's options and names its estimator; --record is
 * listed by the stages with a kernel benchmark and refused in one line by the others. */
static void every_stage_lists_samples_and_record(void **state)
{
    (void)state;
    int whole_path_stages = 0;
    for (int k = 0; k < stage_count; ++k) {
        struct command_result *r = run_shell("%s --help", stage_paths[k]);
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "--samples N"));
        assert_non_null(strstr(r->out, "(default scenes/pt-benchmark.scene"));
        assert_non_null(strstr(r->out, "\nestimator: "));
        if (has_bench(k)) {
            assert_non_null(strstr(r->out, "--record DIR"));
            assert_non_null(strstr(r->out, "--record-segment K"));
            continue;
        }
        ++whole_path_stages;
        assert_null(strstr(r->out, "--record"));
        r = run_shell("%s --record %s/never", stage_paths[k], folder);
        assert_int_equal(r->exit_code, 2);
        assert_string_equal(r->out, "");
        char expected[256];
        snprintf(expected, sizeof expected,
                 "%s: error: option --record saves a segment for the kernel benchmark of the "
                 "stages with a kernel per segment (p01-p07); this stage traces whole paths in "
                 "one kernel (see --help)\n",
                 stage_name(k));
        assert_string_equal(r->err, expected);
    }
    print_message("# %d path-tracing stages: %s ... %s (%d of them whole paths in one kernel)\n",
                  stage_count, stage_name(0), stage_name(stage_count - 1), whole_path_stages);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_renders_the_golden_image_with_the_reference_ray_count),
        cmocka_unit_test(reports_tell_where_samples_are_accumulated),
        cmocka_unit_test(samples_and_size_override_the_scene),
        cmocka_unit_test(every_stage_lists_samples_and_record),
    };
    return cmocka_run_group_tests_name("path-tracing stages on the GPU", tests, setup, teardown);
}
