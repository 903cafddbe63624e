/* Every stage of the path-tracing track (build/pNN-name and side stages build/pNNx-name; not the
 * kernel benchmarks build/<stage>-bench) on a GPU: the CPU reference's image of
 * scenes/pt-quick.scene with the stage's own estimator (the "estimator: NAME" line of its --help;
 * tests/golden/pt-quick.png, pt-quick-nee.png, pt-quick-light-pool.png, pt-quick-reservoirs.png) to
 * the last pixel, the CPU reference's ray count, the same for the many-lights stages on
 * scenes/pt-many-lights.scene (a small size, expected images computed here), and a report that
 * tells where the samples are accumulated. Skipped, with the reason, without a GPU (the --help
 * checks run anyway). Run from the repository root.
 * How the work is spread: each test puts its runs of the stages (every stage on a scene, every
 * tile count, ...) in one batch that runs TEST_GPU_JOBS at a time (default the cores, at most 16;
 * tests/test_support.h's batch_run()), then checks the results and prints its lines stage by
 * stage, in stage order, as it did running them one at a time. What is the same run is made once:
 * every stage's --help (in setup: its estimator, whether it takes --tiles, and the --help checks),
 * its render of pt-quick.scene with its report (the golden image and the report checks both read
 * it), each golden image, and each CPU reference image (in this process, once per estimator). */
#include "test_support.h"

#include "image/image.h"
#include "pathtrace/pt_reference.h"
#include "pathtrace/pt_reservoirs.h" /* PT_ESTIMATOR_RESERVOIRS, PT_ALL_ESTIMATORS */
#include "pathtrace/pt_scene.h"

#define MAX_STAGES 64
#define QUICK_SCENE "scenes/pt-quick.scene"
#define MANY_LIGHTS_SCENE "scenes/pt-many-lights.scene"
#define QUICK_SIDE 128
#define QUICK_SAMPLES 8

/* build/pt-reference --scene scenes/pt-quick.scene --estimator NAME: its image and ray count
 * (tests/test_pt_reference.c checks both against the library). */
static const struct {
    const char *golden;
    double rays;
} quick[PT_ALL_ESTIMATORS] = {
    [PT_ESTIMATOR_PATH] = {"tests/golden/pt-quick.png", 257567.0},
    [PT_ESTIMATOR_NEE] = {"tests/golden/pt-quick-nee.png", 341833.0},
    [PT_ESTIMATOR_LIGHT_POOL] = {"tests/golden/pt-quick-light-pool.png", 341647.0},
    [PT_ESTIMATOR_RESERVOIRS] = {"tests/golden/pt-quick-reservoirs.png", 343193.0},
};
/* From this stage on the samples are added up on the device: no host_accumulate (nor
 * frame_copy) part in the kernel phase, and only the sums come back, once (width*height*3
 * 64-bit integers). Before it, every frame is copied back and added on the host. */
#define FIRST_DEVICE_ACCUMULATION_STAGE 6
/* From this stage on the pixels are resolved on the device too: the 8-bit image comes back
 * (width*height*3 bytes), not the sums. */
#define FIRST_DEVICE_IMAGE_STAGE 10
/* From this stage on the image is copied into page-locked (registered) host memory: the
 * report's host_memory column says pinned; before it, pageable. */
#define FIRST_PINNED_IMAGE_STAGE 11

static char stage_paths[MAX_STAGES][256];
static int stage_estimators[MAX_STAGES]; /* enum pt_estimator; -1: its --help names none */
static int stage_count;
static char folder[64];
static struct batch helps; /* run k: stage k's --help */

/* build/pNN-name and build/pNNx-name, sorted; not their .resources.txt, not build/pNN-name-bench.
 */
static int setup(void **state)
{
    (void)state;
    const char *const patterns[] = {"p[0-9][0-9]-*", "p[0-9][0-9][a-z]-*"};
    stage_count = find_built_stages(patterns, 2, stage_paths, MAX_STAGES);
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    batch_begin(&helps, folder, "help");
    for (int k = 0; k < stage_count; ++k)
        batch_add(&helps, "%s --help", stage_paths[k]);
    batch_run(&helps);
    for (int k = 0; k < stage_count; ++k) {
        struct command_result *r = batch_result(&helps, k);
        const char *line = strstr(r->out, "\nestimator: ");
        char name[32] = "";
        if (line)
            sscanf(line + strlen("\nestimator: "), "%31s", name);
        stage_estimators[k] = pt_estimator_from_name(name);
    }
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

static int has_metric(const char *csv, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(csv, key) != NULL;
}

/* Adds to batch a run of stage k on scene with the extra words and --csv, its image written to
 * BATCH/RUN.png; returns the run's number RUN. */
static int add_stage_run(struct batch *batch, int k, const char *scene, const char *extra)
{
    return batch_add(batch, "%s --scene %s --csv --output %s/%d.png %s", stage_paths[k], scene, batch->folder,
                     batch->count, extra);
}

/* Run `run` of batch, add_stage_run()'s of stage k with the extra words: its image into image,
 * and the result (the report in its out); the test fails, with what the stage said, when it
 * failed. */
static struct command_result *stage_run(const struct batch *batch, int run, int k, const char *extra,
                                        struct image *image)
{
    struct command_result *r = batch_result(batch, run);
    if (r->exit_code != 0)
        fail_msg("%s %s: exit status %d: %.2000s", stage_name(stage_paths[k]), extra, r->exit_code, r->err);
    char out[600], error[IMAGE_ERROR_BYTES];
    snprintf(out, sizeof out, "%s/%d.png", batch->folder, run);
    if (image_read(out, image, error, sizeof error))
        fail_msg("%s", error);
    return r;
}

/* Every stage on pt-quick.scene as it is (no option), run k stage k's: made once, at the first
 * test that needs it (the golden image's, then the report's). */
static const struct batch *quick_runs(void)
{
    static struct batch runs;
    static int made = 0;
    if (!made) {
        batch_begin(&runs, folder, "quick");
        for (int k = 0; k < stage_count; ++k)
            add_stage_run(&runs, k, QUICK_SCENE, "");
        batch_run(&runs);
        made = 1;
    }
    return &runs;
}

/* The golden images of a test: each estimator's read at its first use, then kept. */
struct goldens {
    struct image image[PT_ALL_ESTIMATORS];
    int read[PT_ALL_ESTIMATORS];
};

static const struct image *golden_image(struct goldens *goldens, int e)
{
    if (!goldens->read[e]) {
        char error[IMAGE_ERROR_BYTES];
        assert_int_equal(image_read(quick[e].golden, &goldens->image[e], error, sizeof error), 0);
        goldens->read[e] = 1;
    }
    return &goldens->image[e];
}

static void free_goldens(struct goldens *goldens)
{
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e)
        if (goldens->read[e])
            image_free(&goldens->image[e]);
}

/* The CPU reference's image of scene at width x height and samples with estimator, and in
 * *rays its ray count. */
static struct image reference_image(const char *scene_path, int width, int height, int samples,
                                    int estimator, double *rays)
{
    struct pt_scene scene;
    char error[512];
    int loaded = pt_scene_load(scene_path, &scene, error, sizeof error);
    if (loaded)
        fail_msg("%s", error);
    struct pt_world world = pt_scene_world(&scene, width, height);
    unsigned long long *sums = calloc((size_t)width * height * 3, sizeof *sums);
    assert_non_null(sums);
    *rays = (double)pt_reference_render(&world, estimator, samples, 0, sums);
    struct image expected;
    assert_int_equal(image_alloc(&expected, width, height), 0);
    for (size_t c = 0; c < (size_t)width * height * 3; ++c)
        expected.rgb[c] = pt_pixel_channel(sums[c], samples);
    free(sums);
    pt_scene_free(&scene);
    return expected;
}

/* ---- Tests --------------------------------------------------------------------------------- */

/* Each stage against the golden image and ray count of its estimator. */
static void every_stage_renders_the_golden_image_with_the_reference_ray_count(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const struct batch *runs = quick_runs();
    struct goldens goldens = {0};
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        int e = stage_estimators[k];
        assert_true(e >= 0 && e < PT_ALL_ESTIMATORS);
        const struct image *golden = golden_image(&goldens, e);
        struct image image;
        struct command_result *r = stage_run(runs, k, k, "", &image);
        double rays = csv_metric(r->out, "rays_traced");
        double samples = csv_metric(r->out, "samples_per_pixel");
        long long differing = differing_pixels(stage_name(stage_paths[k]), golden, &image);
        print_message("# %s (%s): %lld pixels differ, %.0f rays, %.0f samples per pixel\n",
                      stage_name(stage_paths[k]), pt_estimator_name(e), differing, rays, samples);
        if (differing != 0 || rays != quick[e].rays || samples != QUICK_SAMPLES ||
            image.width != QUICK_SIDE || image.height != QUICK_SIDE) {
            print_error("%s: expected 0 pixels differing from %s, %.0f rays, %d samples per "
                        "pixel\n",
                        stage_name(stage_paths[k]), quick[e].golden, quick[e].rays, QUICK_SAMPLES);
            ++failures;
        }
        image_free(&image);
    }
    free_goldens(&goldens);
    assert_int_equal(failures, 0);
}

/* The stages of the many-lights lessons (an estimator other than path) on their own scene,
 * 256 lamps, small: the CPU reference's image and ray count with their estimator. */
static void many_lights_stages_match_the_reference_on_their_scene(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const int width = 64, height = 48, samples = 2;
    struct image expected[PT_ALL_ESTIMATORS];
    double rays[PT_ALL_ESTIMATORS];
    int made[PT_ALL_ESTIMATORS] = {0}, failures = 0, checked = 0, run_of[MAX_STAGES];
    struct batch runs;
    batch_begin(&runs, folder, "many-lights");
    for (int k = 0; k < stage_count; ++k)
        if (stage_estimators[k] != PT_ESTIMATOR_PATH)
            run_of[k] = add_stage_run(&runs, k, MANY_LIGHTS_SCENE, "--size 64x48 --samples 2");
    batch_run(&runs);
    for (int k = 0; k < stage_count; ++k) {
        int e = stage_estimators[k];
        if (e == PT_ESTIMATOR_PATH)
            continue;
        assert_true(e >= 0 && e < PT_ALL_ESTIMATORS);
        if (!made[e]) {
            expected[e] = reference_image(MANY_LIGHTS_SCENE, width, height, samples, e, &rays[e]);
            made[e] = 1;
        }
        struct image image;
        struct command_result *r = stage_run(&runs, run_of[k], k, "--size 64x48 --samples 2", &image);
        double traced = csv_metric(r->out, "rays_traced");
        long long differing = differing_pixels(stage_name(stage_paths[k]), &expected[e], &image);
        print_message("# %s (%s) on %s 64x48, 2 samples: %lld pixels differ, %.0f rays (CPU "
                      "%.0f)\n",
                      stage_name(stage_paths[k]), pt_estimator_name(e), MANY_LIGHTS_SCENE, differing, traced,
                      rays[e]);
        if (differing != 0 || traced != rays[e] || strstr(r->out, ",64,48,275,") == NULL)
            ++failures;
        image_free(&image);
        ++checked;
    }
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e)
        if (made[e])
            image_free(&expected[e]);
    if (checked == 0)
        print_message("# no stage with an estimator other than path\n");
    assert_int_equal(failures, 0);
}

/* p01 to p05a copy each frame back and add it up on the host (a host_accumulate part of the
 * kernel phase, and at least a float RGB per pixel per frame copied back); from p06 the sums
 * stay on the device until the end: no host_accumulate, and exactly width*height*3*8 bytes back;
 * from p10 the 8-bit image made on the device: width*height*3 bytes back; from p11 into pinned
 * host memory. */
static void reports_tell_where_samples_are_accumulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const double pixels = (double)QUICK_SIDE * QUICK_SIDE;
    const struct batch *runs = quick_runs();
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        struct image image;
        struct command_result *r = stage_run(runs, k, k, "", &image);
        image_free(&image);
        double down = csv_metric(r->out, "bytes_device_to_host");
        int on_device = stage_number(stage_paths[k]) >= FIRST_DEVICE_ACCUMULATION_STAGE;
        double back = stage_number(stage_paths[k]) >= FIRST_DEVICE_IMAGE_STAGE ? pixels * 3 : pixels * 3 * 8;
        int accumulates_on_host = has_metric(r->out, "host_accumulate");
        double host_us = accumulates_on_host ? csv_metric(r->out, "host_accumulate") : 0;
        print_message("# %s: host_accumulate %s (%.0f us), %.0f bytes device to host\n",
                      stage_name(stage_paths[k]), accumulates_on_host ? "reported" : "absent", host_us, down);
        int ok;
        if (on_device)
            ok = !accumulates_on_host && !has_metric(r->out, "frame_copy") && down == back;
        else
            ok = accumulates_on_host && host_us > 0 && has_metric(r->out, "frame_copy") &&
                 down >= pixels * 12 * QUICK_SAMPLES;
        if (!ok) {
            print_error("%s: expected %s (%.0f bytes)\n", stage_name(stage_paths[k]),
                        on_device ? "no host_accumulate or frame_copy part, the sums or the "
                                    "8-bit image back"
                                  : "a positive host_accumulate part and a frame_copy part, at "
                                    "least 12 bytes per pixel per frame back",
                        on_device ? back : pixels * 12 * QUICK_SAMPLES);
            ++failures;
        }
        const char *host_memory =
            stage_number(stage_paths[k]) >= FIRST_PINNED_IMAGE_STAGE ? ",pinned," : ",pageable,";
        if (!strstr(r->out, host_memory)) {
            print_error("%s: expected host memory %s in its report:\n%.300s\n", stage_name(stage_paths[k]),
                        host_memory, r->out);
            ++failures;
        }
        assert_true(csv_metric(r->out, "kernel_events") > 0);
        assert_true(csv_metric(r->out, "samples_per_second") > 0);
    }
    assert_int_equal(failures, 0);
}

/* --samples and --size override the scene's: the report says 3 samples per pixel, and the image
 * and the ray count are the CPU reference's at that size and count, with the stage's
 * estimator. */
static void samples_and_size_override_the_scene(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const int width = 40, height = 24, samples = 3;
    struct image expected[PT_ALL_ESTIMATORS];
    double rays[PT_ALL_ESTIMATORS];
    struct batch runs; /* run k: stage k's */
    batch_begin(&runs, folder, "small");
    for (int k = 0; k < stage_count; ++k)
        add_stage_run(&runs, k, QUICK_SCENE, "--samples 3 --size 40x24");
    batch_run(&runs);
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e)
        expected[e] = reference_image(QUICK_SCENE, width, height, samples, e, &rays[e]);
    int failures = 0;
    for (int k = 0; k < stage_count; ++k) {
        int e = stage_estimators[k];
        assert_true(e >= 0 && e < PT_ALL_ESTIMATORS);
        struct image image;
        struct command_result *r = stage_run(&runs, k, k, "--samples 3 --size 40x24", &image);
        double reported = csv_metric(r->out, "samples_per_pixel");
        double traced = csv_metric(r->out, "rays_traced");
        long long differing = differing_pixels(stage_name(stage_paths[k]), &expected[e], &image);
        print_message("# %s --samples 3 --size 40x24: %.0f samples per pixel, %.0f rays (CPU %.0f), "
                      "%lld pixels differ\n",
                      stage_name(stage_paths[k]), reported, traced, rays[e], differing);
        if (reported != samples || traced != rays[e] || differing != 0 ||
            strstr(r->out, ",40,24,") == NULL)
            ++failures;
        image_free(&image);
    }
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e)
        image_free(&expected[e]);
    assert_int_equal(failures, 0);
}

/* A stage that renders in tiles (--tiles N in its --help: p08a) renders the same image with any
 * tile count, also with tiles that do not divide the image (128 pixels in 3, 7 or 37 tiles). */
static void tiled_stages_render_the_same_image_with_any_tile_count(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const char *counts[] = {"--tiles 3", "--tiles 7", "--tiles 37", "--tiles 128"};
    const int count_count = sizeof counts / sizeof counts[0];
    int tiles[MAX_STAGES], first_run[MAX_STAGES];
    struct batch runs;
    batch_begin(&runs, folder, "tiles");
    for (int k = 0; k < stage_count; ++k) {
        tiles[k] = strstr(batch_result(&helps, k)->out, "--tiles N") != NULL;
        first_run[k] = runs.count;
        for (int c = 0; tiles[k] && c < count_count; ++c)
            add_stage_run(&runs, k, QUICK_SCENE, counts[c]);
    }
    batch_run(&runs);
    struct goldens goldens = {0};
    int failures = 0, tiled = 0;
    for (int k = 0; k < stage_count; ++k) {
        if (!tiles[k])
            continue;
        ++tiled;
        int e = stage_estimators[k];
        const struct image *golden = golden_image(&goldens, e);
        for (int c = 0; c < count_count; ++c) {
            struct image image;
            struct command_result *r = stage_run(&runs, first_run[k] + c, k, counts[c], &image);
            double rays = csv_metric(r->out, "rays_traced");
            long long differing = differing_pixels(stage_name(stage_paths[k]), golden, &image);
            print_message("# %s %s: %lld pixels differ, %.0f rays\n", stage_name(stage_paths[k]), counts[c],
                          differing, rays);
            failures += differing != 0 || rays != quick[e].rays;
            image_free(&image);
        }
    }
    free_goldens(&goldens);
    print_message("# %d stage(s) render in tiles\n", tiled);
    assert_int_equal(failures, 0);
}

/* A stage that splits its samples over GPUs (--gpus N in its --help: p20) renders the CPU
 * reference's image with --gpus 1 and with every GPU of this machine (the default), also with
 * fewer samples than GPUs (it uses no more GPUs than samples) and with samples the GPUs do not
 * divide; it reports the GPUs it used and its GPUs' spans, the slowest the longest. */
static void stages_over_gpus_render_the_reference_image(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const int width = 40, height = 24;
    const int samples[] = {1, 3, 7};
    const char *gpus[] = {"--gpus 1", ""};
    enum { SAMPLE_CHOICES = sizeof samples / sizeof *samples, GPU_CHOICES = sizeof gpus / sizeof *gpus };
    char extra[SAMPLE_CHOICES][GPU_CHOICES][64];
    int split[MAX_STAGES], first_run[MAX_STAGES];
    struct batch runs;
    batch_begin(&runs, folder, "gpus");
    for (int k = 0; k < stage_count; ++k) {
        split[k] = strstr(batch_result(&helps, k)->out, "--gpus N") != NULL;
        first_run[k] = runs.count;
        for (int n = 0; split[k] && n < SAMPLE_CHOICES; ++n)
            for (int c = 0; c < GPU_CHOICES; ++c) {
                snprintf(extra[n][c], sizeof extra[n][c], "--samples %d --size 40x24 %s", samples[n], gpus[c]);
                add_stage_run(&runs, k, QUICK_SCENE, extra[n][c]);
            }
    }
    batch_run(&runs);
    int failures = 0, splitting = 0;
    for (int k = 0; k < stage_count; ++k) {
        if (!split[k])
            continue;
        ++splitting;
        int e = stage_estimators[k];
        for (int n = 0; n < SAMPLE_CHOICES; ++n) {
            double rays;
            struct image expected = reference_image(QUICK_SCENE, width, height, samples[n], e, &rays);
            for (int c = 0; c < GPU_CHOICES; ++c) {
                struct image image;
                struct command_result *r =
                    stage_run(&runs, first_run[k] + n * GPU_CHOICES + c, k, extra[n][c], &image);
                const double used = csv_metric(r->out, "gpus");
                long long differing = differing_pixels(stage_name(stage_paths[k]), &expected, &image);
                print_message("# %s %s: %.0f GPUs, %lld pixels differ\n", stage_name(stage_paths[k]),
                              extra[n][c], used, differing);
                failures += differing != 0 || used < 1 || used > samples[n] || (c == 0 && used != 1) ||
                            csv_metric(r->out, "render_events_fastest") > csv_metric(r->out, "render_events") ||
                            csv_metric(r->out, "render_events") > csv_metric(r->out, "kernel_events");
                image_free(&image);
            }
            image_free(&expected);
        }
    }
    print_message("# %d stage(s) split their samples over GPUs\n", splitting);
    assert_int_equal(failures, 0);
}

/* Whether the stage has a kernel benchmark (build/<stage>-bench): only the stages with a kernel
 * per segment (p01-p07a) do; the others trace whole paths in one kernel, or, p07b, extend a path
 * by a segment in one kernel, intersection and scatter together. */
static int has_bench(int k)
{
    char bench[300];
    snprintf(bench, sizeof bench, "%.255s-bench", stage_paths[k]); /* (a path holds 255 at most) */
    return access(bench, X_OK) == 0;
}

/* Needs no GPU: every stage lists the track's options and names its estimator; --record is
 * listed by the stages with a kernel benchmark and refused in one line by the others. */
static void every_stage_lists_samples_and_record(void **state)
{
    (void)state;
    int whole_path_stages = 0;
    int record_run[MAX_STAGES]; /* --record of each stage without a kernel benchmark */
    struct batch records;
    batch_begin(&records, folder, "record");
    for (int k = 0; k < stage_count; ++k)
        if (!has_bench(k))
            record_run[k] = batch_add(&records, "%s --record %s/never", stage_paths[k], folder);
    batch_run(&records);
    for (int k = 0; k < stage_count; ++k) {
        struct command_result *r = batch_result(&helps, k);
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "--samples N"));
        assert_non_null(strstr(r->out, "(default scenes/pt-benchmark.scene"));
        assert_non_null(strstr(r->out, "\nestimator: "));
        if (stage_estimators[k] < 0)
            fail_msg("%s --help names no known estimator:\n%s", stage_name(stage_paths[k]), r->out);
        if (has_bench(k)) {
            assert_non_null(strstr(r->out, "--record DIR"));
            assert_non_null(strstr(r->out, "--record-segment K"));
            continue;
        }
        ++whole_path_stages;
        assert_null(strstr(r->out, "--record"));
        r = batch_result(&records, record_run[k]);
        assert_int_equal(r->exit_code, 2);
        assert_string_equal(r->out, "");
        char expected[256];
        snprintf(expected, sizeof expected,
                 "%s: error: option --record saves a segment for the kernel benchmark, which "
                 "times an intersection and a scatter kernel apart (p01-p07a); this stage has no "
                 "such pair of kernels (see --help)\n",
                 stage_name(stage_paths[k]));
        assert_string_equal(r->err, expected);
    }
    print_message("# %d path-tracing stages: %s ... %s (%d of them without a kernel benchmark)\n",
                  stage_count, stage_name(stage_paths[0]), stage_name(stage_paths[stage_count - 1]), whole_path_stages);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_renders_the_golden_image_with_the_reference_ray_count),
        cmocka_unit_test(many_lights_stages_match_the_reference_on_their_scene),
        cmocka_unit_test(reports_tell_where_samples_are_accumulated),
        cmocka_unit_test(samples_and_size_override_the_scene),
        cmocka_unit_test(tiled_stages_render_the_same_image_with_any_tile_count),
        cmocka_unit_test(stages_over_gpus_render_the_reference_image),
        cmocka_unit_test(every_stage_lists_samples_and_record),
    };
    return cmocka_run_group_tests_name("path-tracing stages on the GPU", tests, setup, teardown);
}
