/* Every stage on a GPU: the same picture as stage 01 and as the CPU reference, and the report
 * telling the truth about copies and host memory, as each stage's expectations (below) say.
 * Skipped, with the reason, without a GPU. The main chain (build/NN-name) and the side stages
 * (build/NNx-name, e.g. 07c-unified-memory) are all covered.
 * How the work is spread: each test puts its runs of the stages (every stage on a scene, every
 * block size of every stage, ...) in one batch that runs TEST_GPU_JOBS at a time (default the
 * cores, at most 16; tests/test_support.h's batch_run()), then checks the results and prints its
 * lines stage by stage, in stage order, as it did running them one at a time. What is the same
 * run is made once: each stage's default render of quick.scene and odd-size.scene (the block and
 * rays-per-thread sweeps compare with it), its --csv report of quick.scene (the register cap reads
 * it too), the CPU reference of a scene (in this process), and every stage's stated bound (one
 * `tools/stages table`). */
#include "test_support.h"

#include "raytrace/cpu_reference.h"

#define MAX_STAGES 128

/* ---- What each stage's report and picture must show ---------------------------------------- */

enum upload {
    UPLOAD_FRAME,   /* the frame buffer goes up too (stages 01 to 05) */
    UPLOAD_SCENE,   /* the spheres, light and camera only: a few hundred bytes */
    UPLOAD_NOTHING, /* no explicit copy up at all (managed memory migrating on demand) */
};

#define UNCHECKED (-1)

struct expectations {
    const char *host_memory;  /* the report's host_memory column: pageable, pinned or managed */
    enum upload upload;       /* what bytes_host_to_device counts */
    int bytes_back_per_pixel; /* bytes_device_to_host per pixel: 12 (float RGB), 3 (8-bit RGB),
                                 0 (no explicit copy back) */
    int shared_spheres;       /* 1: the spheres in shared memory; 0: no shared memory; UNCHECKED */
    int rays_per_thread;      /* the stage's default --rays-per-thread; 0: it has no such option */
    int bit_exact;            /* 1: the same bits as stage 01 and the CPU reference (the goal) */
};

/* Defaults from the stage's number, for the main chain and any stage without a row below. */
#define FIRST_PINNED_STAGE 5          /* cudaMallocHost (or registered memory) from here on */
#define FIRST_SCENE_ONLY_UPLOAD 6     /* the empty frame buffer is no longer uploaded */
#define FIRST_SHARED_SPHERES_STAGE 7  /* the spheres in shared memory */
/* From this stage on the kernel writes 8-bit RGB and width*height*3 bytes come back instead of
 * width*height*12. Stages after 07 set their own rows below where they differ (shared memory,
 * 8-bit frame, host memory, ...); their shared memory is not checked unless a row says so. */
#define FIRST_RGB8_STAGE 8

static struct expectations expectations_by_number(int number)
{
    struct expectations e;
    e.host_memory = number >= FIRST_PINNED_STAGE ? "pinned" : "pageable";
    e.upload = number >= FIRST_SCENE_ONLY_UPLOAD ? UPLOAD_SCENE : UPLOAD_FRAME;
    e.bytes_back_per_pixel = number >= FIRST_RGB8_STAGE ? 3 : 12;
    e.shared_spheres = number < FIRST_SHARED_SPHERES_STAGE ? 0
                       : number == FIRST_SHARED_SPHERES_STAGE ? 1
                                                              : UNCHECKED;
    e.rays_per_thread = 0;
    e.bit_exact = 1;
    return e;
}

/* Stages whose expectations differ from their number's, keyed by the start of the folder name
 * up to its first '-' ("07c" is build/07c-unified-memory). A row states every field. */
static const struct {
    const char *prefix;
    struct expectations expect;
} stage_rows[] = {
    /* prefix  host memory  upload          back/pixel shared rays/thread bit-exact */
    {"07a", {"pinned", UPLOAD_SCENE, 12, 1, 0, 1}},
    {"07b", {"pinned", UPLOAD_SCENE, 12, 1, 0, 1}},   /* the spheres only: light, camera by value */
    {"07c", {"managed", UPLOAD_NOTHING, 0, 1, 0, 1}}, /* pages migrate on demand, nothing copied */
    {"07d", {"managed", UPLOAD_SCENE, 12, 1, 0, 1}},  /* prefetches counted as copies */
    {"07e", {"pinned", UPLOAD_SCENE, 12, 1, 4, 1}},
    {"07f", {"pinned", UPLOAD_SCENE, 12, 1, 0, 1}},
    /* From stage 11 the scene is in constant memory: no shared memory (12b has its lists). */
    {"11", {"pinned", UPLOAD_SCENE, 3, 0, 0, 1}},
    {"12", {"pinned", UPLOAD_SCENE, 3, 0, 0, 1}},
    {"12a", {"pinned", UPLOAD_SCENE, 3, 0, 0, 0}}, /* fused multiply-add: new last bits */
    {"12b", {"pinned", UPLOAD_SCENE, 3, UNCHECKED, 0, 1}},
    {"13", {"pinned", UPLOAD_SCENE, 3, 0, 0, 1}},
};

static struct expectations expectations_for(const char *stage)
{
    size_t length = strcspn(stage, "-");
    for (size_t k = 0; k < sizeof stage_rows / sizeof stage_rows[0]; ++k)
        if (strlen(stage_rows[k].prefix) == length &&
            strncmp(stage, stage_rows[k].prefix, length) == 0)
            return stage_rows[k].expect;
    return expectations_by_number(atoi(stage));
}

/* ---- The stages built here ------------------------------------------------------------------ */

static char stage_paths[MAX_STAGES][256];
static int stage_count;
static char folder[64];
/* The percentage of differing pixels each stage allows itself: its manifest's
 * max-differing-percent (0 unless it changes the arithmetic on purpose), or -1 when it cannot be
 * read; from one `tools/stages table`, not a tools/stages process per stage. */
static double stated_bounds[MAX_STAGES];

static void read_stated_bounds(void)
{
    for (int k = 0; k < stage_count; ++k)
        stated_bounds[k] = -1;
    struct command_result *r = run_shell(
        "tools/stages table | awk -F'\\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } "
        "{ print $c[\"stage\"] \"\\t\" $c[\"max-differing-percent\"] }'");
    if (r->exit_code != 0)
        return;
    char *cursor = r->out;
    for (char *line; (line = next_line(&cursor));) {
        char *value = strchr(line, '\t');
        if (!value)
            continue;
        *value++ = '\0';
        for (int k = 0; k < stage_count; ++k) {
            double percent;
            if (strcmp(stage_name(stage_paths[k]), line) == 0 && sscanf(value, "%lf", &percent) == 1)
                stated_bounds[k] = percent;
        }
    }
}

/* build/NN-name and build/NNx-name, sorted (01-base first, 07-shared-spheres before 07a-...). */
static int setup(void **state)
{
    (void)state;
    const char *const patterns[] = {"[0-9][0-9]-*", "[0-9][0-9][a-z]-*"};
    stage_count = find_built_stages(patterns, 2, stage_paths, MAX_STAGES);
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    read_stated_bounds();
    return stage_count > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
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

/* Where run `run` of batch writes stage k's image: a PPM (02a's is text, the study's format, which
 * image_read reads too), except 21a's, whose lesson is its PNG (written while the frame arrives;
 * its PPM is written as stage 21 writes it). */
static void image_path(const struct batch *batch, int run, int k, char *path, size_t size)
{
    snprintf(path, size, "%s/%d.%s", batch->folder, run,
             strncmp(stage_name(stage_paths[k]), "21a-", 4) == 0 ? "png" : "ppm");
}

/* Adds stage k's render of scene_path with the extra words to batch; returns the run's number. */
static int add_render(struct batch *batch, int k, const char *scene_path, const char *extra)
{
    char out[600];
    image_path(batch, batch->count, k, out, sizeof out);
    return batch_add(batch, "%s --scene %s --output %s %s", stage_paths[k], scene_path, out, extra);
}

/* The image of run `run` of batch, stage k's render: the test fails, with what the stage said,
 * when it failed. */
static struct image rendered(const struct batch *batch, int run, int k)
{
    struct command_result *r = batch_result(batch, run);
    if (r->exit_code != 0)
        print_message("# %s failed (%d): %s\n", stage_name(stage_paths[k]), r->exit_code, r->err);
    assert_int_equal(r->exit_code, 0);
    char out[600];
    image_path(batch, run, k, out, sizeof out);
    struct image image;
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_read(out, &image, error, sizeof error), 0);
    return image;
}

/* The scenes every stage renders as it is (no option): quick.scene, and odd-size.scene, whose
 * sides no block size divides. */
enum { QUICK_SCENE, ODD_SIZE_SCENE, SCENES };
static const char *const scene_paths[SCENES] = {"scenes/quick.scene", "scenes/odd-size.scene"};
static struct batch default_renders[SCENES]; /* run k: stage k */
static int default_rendered[SCENES];

/* Every stage's render of a scene with no option, run k stage k's: made once, at the first test
 * that needs them; the tests after it compare their renders with these. */
static const struct batch *renders_of(int scene)
{
    if (!default_rendered[scene]) {
        batch_begin(&default_renders[scene], folder, scene == QUICK_SCENE ? "quick" : "odd-size");
        for (int k = 0; k < stage_count; ++k)
            add_render(&default_renders[scene], k, scene_paths[scene], "");
        batch_run(&default_renders[scene]);
        default_rendered[scene] = 1;
    }
    return &default_renders[scene];
}

/* Every stage's report of quick.scene (--csv, no image), run k stage k's: made once. */
static const struct batch *quick_reports(void)
{
    static struct batch reports;
    static int made = 0;
    if (!made) {
        batch_begin(&reports, folder, "reports");
        for (int k = 0; k < stage_count; ++k)
            batch_add(&reports, "%s --scene scenes/quick.scene --csv", stage_paths[k]);
        batch_run(&reports);
        made = 1;
    }
    return &reports;
}

/* The index of the stage whose folder name starts with prefix up to its '-', or -1. */
static int find_stage(const char *prefix)
{
    for (int k = 0; k < stage_count; ++k)
        if (strncmp(stage_name(stage_paths[k]), prefix, strlen(prefix)) == 0 &&
            stage_name(stage_paths[k])[strlen(prefix)] == '-')
            return k;
    return -1;
}

/* Every bit-exact stage: identical to stage 01 and to the CPU reference, and its manifest allows
 * no difference. A stage that changes the arithmetic on purpose: within its manifest's bound. */
static void same_picture(int scene)
{
    SKIP_WITHOUT_GPU();
    const char *scene_path = scene_paths[scene];
    const struct batch *renders = renders_of(scene);
    struct image reference = render_on_cpu(scene_path);
    struct image first = rendered(renders, 0, 0);
    for (int k = 0; k < stage_count; ++k) {
        struct image image = k ? rendered(renders, k, k) : first;
        struct image_difference to_cpu, to_first;
        assert_int_equal(image_compare(&reference, &image, &to_cpu), 0);
        assert_int_equal(image_compare(&first, &image, &to_first), 0);
        print_message("# %s on %s: %lld pixels differ from the CPU reference (largest %d), "
                      "%lld from %s\n",
                      stage_name(stage_paths[k]), scene_path, to_cpu.differing_pixels,
                      to_cpu.largest_channel_difference, to_first.differing_pixels, stage_name(stage_paths[0]));
        double bound = stated_bounds[k];
        if (expectations_for(stage_name(stage_paths[k])).bit_exact) {
            assert_true(bound == 0); /* an exact stage states no bound that could hide a change */
            assert_int_equal(to_cpu.differing_pixels, 0);
            assert_int_equal(to_first.differing_pixels, 0);
        } else {
            /* Changed arithmetic on purpose (fused multiply-add): the stage states its bound in
             * its manifest's max-differing-percent, which run.sh verifies it against too (12a:
             * 0.03%; it is a side stage because the main chain keeps the CPU reference's bits). */
            assert_true(bound > 0);
            assert_true(to_cpu.differing_pixels * 100.0 <= bound * (double)to_cpu.total_pixels);
            assert_true(to_first.differing_pixels * 100.0 <= bound * (double)to_first.total_pixels);
        }
        if (k)
            image_free(&image);
    }
    image_free(&first);
    image_free(&reference);
}

static void every_stage_renders_quick_scene_like_stage_01_and_the_cpu(void **state)
{
    (void)state;
    same_picture(QUICK_SCENE);
}

static void partial_blocks_render_right_too(void **state)
{
    (void)state;
    same_picture(ODD_SIZE_SCENE);
}

static void reports_tell_copies_and_host_memory(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const double pixels = 512.0 * 512.0, float_frame_bytes = pixels * 12.0;
    const struct batch *reports = quick_reports();
    for (int k = 0; k < stage_count; ++k) {
        struct command_result *r = batch_result(reports, k);
        assert_int_equal(r->exit_code, 0);
        const struct expectations e = expectations_for(stage_name(stage_paths[k]));
        char host_memory_column[64];
        snprintf(host_memory_column, sizeof host_memory_column, ",%s,", e.host_memory);
        if (!strstr(r->out, host_memory_column))
            print_message("# %s: host memory is not %s:\n%.300s\n", stage_name(stage_paths[k]), e.host_memory,
                          r->out);
        assert_non_null(strstr(r->out, host_memory_column));
        double up = csv_metric(r->out, "bytes_host_to_device");
        double down = csv_metric(r->out, "bytes_device_to_host");
        print_message("# %s: %.0f bytes up, %.0f down, %s host memory\n", stage_name(stage_paths[k]), up, down,
                      e.host_memory);
        assert_true(down == pixels * e.bytes_back_per_pixel);
        if (e.upload == UPLOAD_FRAME) {
            assert_true(up >= float_frame_bytes);
        } else if (e.upload == UPLOAD_SCENE) {
            /* the spheres, and the light and camera: once to each GPU of a stage that renders on
             * several (chapter 6: its metric gpus) */
            const double gpus = strstr(r->out, ",gpus,") ? csv_metric(r->out, "gpus") : 1;
            assert_true(up > 0 && up < 4096 * gpus);
        } else {
            assert_true(up == 0);
            /* nothing to allocate on the device or copy up: phases with nothing in them */
            assert_true(csv_metric(r->out, "device_allocation") < 1000);
            assert_true(csv_metric(r->out, "host_to_device") < 1000);
        }
        if (e.rays_per_thread > 0)
            assert_true(csv_metric(r->out, "rays_per_thread") == e.rays_per_thread);
        /* The total is the sum of the phases: the study's seven, and the acceleration
         * structure's build where a stage has one (0 when the CSV has no such row). */
        double sum = 0;
        const char *phases[] = {"host_allocation", "device_allocation", "host_to_device", "build",
                                "kernel", "device_to_host", "device_free", "host_free"};
        for (int p = 0; p < 8; ++p)
            if (p != 3 || strstr(r->out, ",build,"))
                sum += csv_metric(r->out, phases[p]);
        assert_true(csv_metric(r->out, "total") == sum);
        assert_true(csv_metric(r->out, "kernel_events") > 0);
        assert_true(csv_metric(r->out, "rays_traced") >= 512.0 * 512.0);
        double shared = csv_metric(r->out, "shared_memory");
        if (e.shared_spheres == 1)
            assert_true(shared >= 19 * 28);
        else if (e.shared_spheres == 0)
            assert_true(shared == 0);
    }
}

static void block_size_can_be_swept_from_stage_03(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const char *blocks[] = {"--block 8x8", "--block 32x4", "--block 7x13"};
    const struct batch *defaults = renders_of(ODD_SIZE_SCENE);
    struct batch sweep;
    int first_run[MAX_STAGES];
    batch_begin(&sweep, folder, "blocks");
    for (int k = 0; k < stage_count; ++k)
        if (atoi(stage_name(stage_paths[k])) >= 3) {
            first_run[k] = sweep.count;
            for (int b = 0; b < 3; ++b)
                add_render(&sweep, k, "scenes/odd-size.scene", blocks[b]);
        }
    batch_run(&sweep);
    for (int k = 0; k < stage_count; ++k) {
        if (atoi(stage_name(stage_paths[k])) < 3)
            continue;
        struct image base = rendered(defaults, k, k);
        for (int b = 0; b < 3; ++b) {
            struct image image = rendered(&sweep, first_run[k] + b, k);
            struct image_difference diff;
            assert_int_equal(image_compare(&base, &image, &diff), 0);
            assert_int_equal(diff.differing_pixels, 0);
            image_free(&image);
        }
        image_free(&base);
    }
    remove_temporary_folder(sweep.folder); /* 2.3 MB an image, three a stage */
}

/* A stage that takes --rays-per-thread renders the same picture with any count, on a scene
 * whose height (767) no count divides evenly, so the last pass of some threads falls off the
 * image. */
static void rays_per_thread_keep_the_picture(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const char *counts[] = {"--rays-per-thread 1", "--rays-per-thread 3", "--rays-per-thread 16",
                            "--rays-per-thread 64 --block 7x13"};
    const struct batch *defaults = renders_of(ODD_SIZE_SCENE);
    struct batch sweep;
    int first_run[MAX_STAGES];
    batch_begin(&sweep, folder, "rays-per-thread");
    for (int k = 0; k < stage_count; ++k)
        if (expectations_for(stage_name(stage_paths[k])).rays_per_thread != 0) {
            first_run[k] = sweep.count;
            for (int c = 0; c < 4; ++c)
                add_render(&sweep, k, "scenes/odd-size.scene", counts[c]);
        }
    batch_run(&sweep);
    int tested = 0;
    for (int k = 0; k < stage_count; ++k) {
        if (expectations_for(stage_name(stage_paths[k])).rays_per_thread == 0)
            continue;
        struct image base = rendered(defaults, k, k);
        for (int c = 0; c < 4; ++c) {
            struct image image = rendered(&sweep, first_run[k] + c, k);
            struct image_difference diff;
            assert_int_equal(image_compare(&base, &image, &diff), 0);
            print_message("# %s %s: %lld pixels differ from its default\n", stage_name(stage_paths[k]),
                          counts[c], diff.differing_pixels);
            assert_int_equal(diff.differing_pixels, 0);
            image_free(&image);
        }
        image_free(&base);
        ++tested;
    }
    remove_temporary_folder(sweep.folder);
    if (!tested)
        print_message("# no stage built here takes --rays-per-thread\n");
}

/* Needs no GPU: the option is refused before the GPU is touched where a stage does not take it,
 * and listed with the stage's default where it does. */
static void rays_per_thread_only_where_a_stage_takes_it(void **state)
{
    (void)state;
    struct batch runs; /* run k: stage k's */
    batch_begin(&runs, folder, "rays-per-thread-option");
    for (int k = 0; k < stage_count; ++k) {
        if (expectations_for(stage_name(stage_paths[k])).rays_per_thread == 0)
            batch_add(&runs, "%s --rays-per-thread 2 --scene scenes/quick.scene --size 16x16", stage_paths[k]);
        else
            batch_add(&runs, "%s --help", stage_paths[k]);
    }
    batch_run(&runs);
    for (int k = 0; k < stage_count; ++k) {
        const struct expectations e = expectations_for(stage_name(stage_paths[k]));
        struct command_result *r = batch_result(&runs, k);
        if (e.rays_per_thread == 0) {
            assert_int_equal(r->exit_code, 2);
            assert_non_null(strstr(r->err, "option --rays-per-thread is not available in this stage"));
        } else {
            assert_int_equal(r->exit_code, 0);
            char listed[64];
            snprintf(listed, sizeof listed, "(default %d)", e.rays_per_thread);
            const char *option = strstr(r->out, "--rays-per-thread N");
            assert_non_null(option);
            assert_non_null(strstr(option, listed));
        }
    }
}

/* Stage 07f's __launch_bounds__ caps its registers below stage 07's and so raises the
 * theoretical occupancy the report gives (to 100% on a GPU whose multiprocessors hold 2048
 * threads, e.g. an H100; unchanged where they hold fewer, since one 32x32 block is all that fits
 * there anyway). */
static void register_cap_raises_occupancy(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    int capped = find_stage("07f"), plain = find_stage("07");
    if (capped < 0 || plain < 0) {
        print_message("# skipped: stage 07 or 07f not built here\n");
        skip();
    }
    double registers[2], occupancy[2];
    const int stages[2] = {plain, capped};
    const struct batch *reports = quick_reports();
    for (int s = 0; s < 2; ++s) {
        struct command_result *r = batch_result(reports, stages[s]);
        assert_int_equal(r->exit_code, 0);
        registers[s] = csv_metric(r->out, "registers");
        occupancy[s] = csv_metric(r->out, "theoretical_occupancy");
    }
    print_message("# 07: %.0f registers, %.1f%% occupancy; 07f: %.0f registers, %.1f%%\n",
                  registers[0], occupancy[0], registers[1], occupancy[1]);
    assert_true(registers[1] <= registers[0]);
    assert_true(occupancy[1] >= occupancy[0]);
    if (registers[1] < registers[0])
        assert_true(registers[1] <= 32 && occupancy[1] > occupancy[0]);
}

/* Stage 21a encodes its PNG while the bands arrive, in chunks of its own (so other bytes than
 * stage 21's PNG): the same pixels as stage 21's PNG and as its own PPM (stage 21's way of
 * writing), on sizes whose bands are uneven or hold a row each, with smaller blocks, and with
 * steady frames after the first. Its report times the write from the last band's arrival. */

/* Adds stage k's render with args to batch, its image written as a file of the extension, with
 * its report (--csv); returns the run's number. */
static int add_render_to(struct batch *batch, int k, const char *args, const char *extension)
{
    return batch_add(batch, "%s %s --output %s/%d.%s --csv", stage_paths[k], args, batch->folder, batch->count,
                     extension);
}

/* The image of run `run` of batch, add_render_to()'s of stage k with args (removed once read),
 * and in csv, when not NULL, its report; the test fails, with what the stage said, when it failed. */
static struct image rendered_to(const struct batch *batch, int run, int k, const char *args, const char *extension,
                                char *csv, size_t csv_size)
{
    struct command_result *r = batch_result(batch, run);
    if (r->exit_code != 0)
        print_message("# %s %s failed (%d): %s\n", stage_name(stage_paths[k]), args, r->exit_code, r->err);
    assert_int_equal(r->exit_code, 0);
    if (csv)
        snprintf(csv, csv_size, "%s", r->out);
    char out[600];
    snprintf(out, sizeof out, "%s/%d.%s", batch->folder, run, extension);
    struct image image;
    char error[IMAGE_ERROR_BYTES];
    if (image_read(out, &image, error, sizeof error))
        fail_msg("%s", error);
    remove(out);
    return image;
}

static void streamed_png_has_stage_21s_pixels(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    int streamed = find_stage("21a"), plain = find_stage("21");
    if (streamed < 0 || plain < 0) {
        print_message("# skipped: stage 21 or 21a not built here\n");
        skip();
    }
    static const char *runs[] = {
        "--scene scenes/quick.scene",
        "--scene scenes/odd-size.scene",
        "--scene scenes/odd-size.scene --block 7x13",
        "--scene scenes/benchmark.scene --size 1001x1013",
        "--scene scenes/benchmark.scene --size 2x3", /* fewer rows than bands: a row a band */
        "--scene scenes/benchmark.scene --size 4096x2049 --frames 3",
    };
    static char csv[TEST_OUTPUT_BYTES];
    /* Each of the runs three times: 3r stage 21's PNG, 3r + 1 21a's PNG, 3r + 2 21a's PPM; then
     * 21a without an image. */
    struct batch renders;
    batch_begin(&renders, folder, "streamed-png");
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
        add_render_to(&renders, plain, runs[r], "png");
        add_render_to(&renders, streamed, runs[r], "png");
        add_render_to(&renders, streamed, runs[r], "ppm");
    }
    const int without_image = batch_add(&renders, "%s --scene scenes/quick.scene --csv", stage_paths[streamed]);
    batch_run(&renders);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
        const int run = 3 * (int)r;
        struct image reference = rendered_to(&renders, run, plain, runs[r], "png", NULL, 0);
        struct image png = rendered_to(&renders, run + 1, streamed, runs[r], "png", csv, sizeof csv);
        struct image ppm = rendered_to(&renders, run + 2, streamed, runs[r], "ppm", NULL, 0);
        struct image_difference to_21, to_ppm;
        assert_int_equal(image_compare(&reference, &png, &to_21), 0);
        assert_int_equal(image_compare(&ppm, &png, &to_ppm), 0);
        double write = csv_metric(csv, "image_write");
        double left = csv_metric(csv, "image_encode_left");
        double chunks = csv_metric(csv, "image_chunks");
        print_message("# 21a %s: %lld pixels differ from 21's PNG, %lld from its PPM; %.0f "
                      "chunks, image_write %.0f us (encoding left %.0f us)\n",
                      runs[r], to_21.differing_pixels, to_ppm.differing_pixels, chunks, write, left);
        assert_int_equal(to_21.differing_pixels, 0);
        assert_int_equal(to_ppm.differing_pixels, 0);
        assert_true(left >= 0 && left <= write && chunks >= 1);
        image_free(&reference);
        image_free(&png);
        image_free(&ppm);
    }
    /* quick.scene (runs[0]) is 512x512: 16 bands of 32 rows, 49 KB each, one chunk each. */
    assert_true(csv_metric(batch_result(&renders, 1)->out, "image_chunks") == 16);
    /* Without a PNG, nothing of the encoder runs: stage 21's report, phase for phase. */
    struct command_result *r = batch_result(&renders, without_image);
    assert_int_equal(r->exit_code, 0);
    assert_null(strstr(r->out, ",image_chunks,"));
    assert_null(strstr(r->out, ",image_write,"));
    r = batch_result(&renders, 2); /* 21a's PPM of quick.scene */
    assert_null(strstr(r->out, ",image_chunks,"));
    assert_non_null(strstr(r->out, ",image_write,"));
}

/* The runs of stage 40 and 41 against stage 21: sizes whose slices and bands are uneven or hold a
 * row each, with smaller blocks, and with steady frames after the first. */
static const char *const rows_over_gpus_runs[] = {
    "--scene scenes/quick.scene",
    "--scene scenes/odd-size.scene --block 7x13",
    "--scene scenes/benchmark.scene --size 1001x1013",
    "--scene scenes/benchmark.scene --size 2x3", /* fewer rows than bands, maybe than GPUs */
    "--scene scenes/benchmark.scene --size 4096x2049 --frames 3",
};
/* Stage 41 re-splits the rows before every frame after the first: every run with steady frames,
 * one of them with fewer tile rows than GPUs maybe (split in whole rows then). */
static const char *const balanced_rows_runs[] = {
    "--scene scenes/quick.scene --frames 3",
    "--scene scenes/odd-size.scene --block 7x13 --frames 3",
    "--scene scenes/benchmark.scene --size 1001x1013 --frames 3",
    "--scene scenes/benchmark.scene --size 2x3 --frames 3",
    "--scene scenes/benchmark.scene --size 3x40 --frames 4", /* two tile rows, the last short */
    "--scene scenes/benchmark.scene --size 4096x2049 --frames 3",
};

/* Stage `id` splits the rows of stage `plain`'s frame over the GPUs: with --gpus 1 and with every
 * GPU of this machine (the default; more GPUs than rows leave the extra ones out), `plain`'s pixels
 * on every run; its report names the GPUs it used, and the slowest GPU's span is the longest.
 * A stage that re-splits the rows (unit > 0: 41, 41a and 43) also reports the split of its last
 * frame: every row on one GPU, and on several, the first GPU's slice in whole units of rows (41's
 * tile rows of 32, 43's rows of warp tiles, 4) once the rows were re-split (the image has a unit
 * a GPU, and more than one frame was rendered). `batch` names the folder of its renders. */
static void rows_over_gpus_keep_pixels(const char *id, const char *plain_id, int unit,
                                       const char *batch, const char *const *runs,
                                       size_t run_count)
{
    SKIP_WITHOUT_GPU();
    int split = find_stage(id), plain = find_stage(plain_id);
    if (split < 0 || plain < 0) {
        print_message("# skipped: stage %s or %s not built here\n", plain_id, id);
        skip();
    }
    static const char *gpus[] = {"--gpus 1", ""};
    enum { GPU_CHOICES = sizeof gpus / sizeof *gpus };
    static char args[GPU_CHOICES][512], csv[TEST_OUTPUT_BYTES];
    /* Each of the runs 1 + GPU_CHOICES times: the plain stage's, then the stage's with each. */
    struct batch renders;
    batch_begin(&renders, folder, batch);
    for (size_t r = 0; r < run_count; ++r) {
        add_render_to(&renders, plain, runs[r], "ppm");
        for (int c = 0; c < GPU_CHOICES; ++c) {
            snprintf(args[c], sizeof args[c], "%s %s", runs[r], gpus[c]);
            add_render_to(&renders, split, args[c], "ppm");
        }
    }
    batch_run(&renders);
    for (size_t r = 0; r < run_count; ++r) {
        const int run = (1 + GPU_CHOICES) * (int)r;
        struct image reference = rendered_to(&renders, run, plain, runs[r], "ppm", NULL, 0);
        for (int c = 0; c < GPU_CHOICES; ++c) {
            snprintf(args[c], sizeof args[c], "%s %s", runs[r], gpus[c]);
            struct image image =
                rendered_to(&renders, run + 1 + c, split, args[c], "ppm", csv, sizeof csv);
            struct image_difference to_plain;
            assert_int_equal(image_compare(&reference, &image, &to_plain), 0);
            const double used = csv_metric(csv, "gpus");
            print_message("# %s %s (%.0f GPUs): %lld pixels differ from %s's\n", id, args[c],
                          used, to_plain.differing_pixels, plain_id);
            assert_int_equal(to_plain.differing_pixels, 0);
            assert_true(c == 0 ? used == 1 : used >= 1);
            assert_true(csv_metric(csv, "kernel_events_fastest") <= csv_metric(csv, "kernel_events"));
            if (unit > 0) {
                const double rows = csv_metric(csv, "rows_first_gpu");
                const int resplit = used > 1 && strstr(runs[r], "--frames") &&
                                    (image.height + unit - 1) / unit >= used;
                print_message("# %s %s: the first GPU's rows %.0f of %d\n", id, args[c], rows,
                              image.height);
                assert_true(used == 1 ? rows == image.height : rows >= 1 && rows < image.height);
                if (resplit)
                    assert_true((long long)rows % unit == 0);
                assert_true(csv_metric(csv, "kernel_events_last_frame_fastest") <=
                            csv_metric(csv, "kernel_events_last_frame"));
                assert_true(csv_metric(csv, "copies_events_last_frame_fastest") <=
                            csv_metric(csv, "copies_events_last_frame"));
                /* A GPU's last copy follows its last band's kernel. */
                assert_true(csv_metric(csv, "copies_events_last_frame") >=
                            csv_metric(csv, "kernel_events_last_frame"));
            }
            image_free(&image);
        }
        image_free(&reference);
    }
}

/* Stage 40: the rows split evenly over the GPUs. */
static void rows_over_gpus_keep_stage_21s_pixels(void **state)
{
    (void)state;
    rows_over_gpus_keep_pixels("40", "21", 0, "rows-over-gpus", rows_over_gpus_runs,
                               sizeof rows_over_gpus_runs / sizeof *rows_over_gpus_runs);
}

/* Stage 41: the rows re-split before every frame after the first, from the frame before's times. */
static void balanced_rows_keep_stage_21s_pixels(void **state)
{
    (void)state;
    rows_over_gpus_keep_pixels("41", "21", 32, "balanced-rows", balanced_rows_runs,
                               sizeof balanced_rows_runs / sizeof *balanced_rows_runs);
}

/* Side stage 41a: stage 41's frames, each GPU's launches made by a host thread of its own. */
static void thread_per_gpu_keeps_stage_21s_pixels(void **state)
{
    (void)state;
    rows_over_gpus_keep_pixels("41a", "21", 32, "thread-per-gpu", balanced_rows_runs,
                               sizeof balanced_rows_runs / sizeof *balanced_rows_runs);
}

/* Stage 43: stage 33's frame over the GPUs, a tree built on each, the rows re-split as 41's in rows
 * of warp tiles: the runs of stage 41, a scene of one sphere (a root that is a leaf), and a scene
 * of many spheres, whose rows cost unevenly. */
static const char *const big_scenes_runs[] = {
    "--scene scenes/quick.scene --frames 3",
    "--scene scenes/odd-size.scene --block 7x13 --frames 3",
    "--scene scenes/benchmark.scene --size 1001x1013 --frames 3",
    "--scene scenes/benchmark.scene --size 2x3 --frames 3",
    "--scene scenes/benchmark.scene --size 3x10 --frames 4", /* three rows of tiles, one short */
    "--scene scenes/one-sphere.scene --size 640x480 --frames 3",
    "--scene scenes/many-spheres.scene --size 1280x720 --frames 4",
};

static void big_scenes_over_gpus_keep_stage_33s_pixels(void **state)
{
    (void)state;
    rows_over_gpus_keep_pixels("43", "33", 4, "big-scenes-over-gpus", big_scenes_runs,
                               sizeof big_scenes_runs / sizeof *big_scenes_runs);
}

/* How many GPUs a stage of this process would see: CUDA_VISIBLE_DEVICES's, else nvidia-smi's. */
static int visible_gpus(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible && *visible) {
        int count = 1;
        for (const char *c = visible; *c; ++c)
            count += *c == ',';
        return count;
    }
    const long listed = sh_num("nvidia-smi -L 2>/dev/null | grep -c '^GPU '");
    return listed > 0 ? (int)listed : 1;
}

/* Stage 42 is one process a GPU, started here by tools/launch-ranks.sh: with one rank, and with a
 * rank for every GPU of this machine (no more than the image has rows), stage 21's pixels on stage
 * 40's runs (uneven slices, a row a rank, small blocks, steady frames). Rank 0's report is the one
 * report (the others print nothing): it names the ranks and has the gather's parts. Skipped where
 * stage 42 is not built (no NCCL: make left-out). */
static void ranks_over_gpus_keep_stage_21s_pixels(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    int ranked = find_stage("42"), plain = find_stage("21");
    if (ranked < 0 || plain < 0) {
        print_message("# skipped: stage 21 or 42 not built here (stage 42 needs NCCL: make left-out)\n");
        skip();
    }
    static const struct {
        const char *args;
        int rows;
    } runs[] = {
        {"--scene scenes/quick.scene", 512},
        {"--scene scenes/odd-size.scene --block 7x13", 767},
        {"--scene scenes/benchmark.scene --size 1001x1013", 1013},
        {"--scene scenes/benchmark.scene --size 2x3", 3}, /* a row a rank, or fewer ranks */
        {"--scene scenes/benchmark.scene --size 4096x2049 --frames 3", 2049},
    };
    enum { RUNS = sizeof runs / sizeof *runs, CHOICES = 2 };
    const int every = visible_gpus();
    int ranks[RUNS][CHOICES];
    static char csv[TEST_OUTPUT_BYTES];
    /* Each of the runs 1 + CHOICES times: stage 21's, then stage 42's on one rank and on every GPU. */
    struct batch renders;
    batch_begin(&renders, folder, "ranks-over-gpus");
    for (int r = 0; r < RUNS; ++r) {
        add_render_to(&renders, plain, runs[r].args, "ppm");
        for (int c = 0; c < CHOICES; ++c) {
            ranks[r][c] = c == 0 ? 1 : every < runs[r].rows ? every : runs[r].rows;
            batch_add(&renders, "tools/launch-ranks.sh %d -- %s %s --output %s/%d.ppm --csv", ranks[r][c],
                      stage_paths[ranked], runs[r].args, renders.folder, renders.count);
        }
    }
    batch_run(&renders);
    for (int r = 0; r < RUNS; ++r) {
        const int run = (1 + CHOICES) * r;
        struct image reference = rendered_to(&renders, run, plain, runs[r].args, "ppm", NULL, 0);
        for (int c = 0; c < CHOICES; ++c) {
            struct image image =
                rendered_to(&renders, run + 1 + c, ranked, runs[r].args, "ppm", csv, sizeof csv);
            struct image_difference to_21;
            assert_int_equal(image_compare(&reference, &image, &to_21), 0);
            print_message("# 42 %s on %d rank(s): %lld pixels differ from 21's; gather %.0f us, "
                          "gather_events %.1f us\n",
                          runs[r].args, ranks[r][c], to_21.differing_pixels, csv_metric(csv, "gather"),
                          csv_metric(csv, "gather_events"));
            assert_int_equal(to_21.differing_pixels, 0);
            /* One report, rank 0's: one header, the world's size, the gather's parts. */
            int headers = 0;
            for (const char *line = csv; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
                headers += strncmp(line, "stage,", 6) == 0;
            assert_int_equal(headers, 1);
            assert_true(csv_metric(csv, "ranks") == ranks[r][c]);
            assert_non_null(strstr(csv, ",gather,"));
            assert_non_null(strstr(csv, ",copy_home,"));
            assert_true(csv_metric(csv, "kernel_events_fastest") <= csv_metric(csv, "kernel_events"));
            image_free(&image);
        }
        image_free(&reference);
    }
}

/* Needs no GPU: a stage states a bound on its differing pixels (the file run.sh verifies with) if
 * and only if its row says its picture is not bit-exact. */
static void only_stages_that_change_the_arithmetic_state_a_bound(void **state)
{
    (void)state;
    int not_exact = 0;
    for (int k = 0; k < stage_count; ++k) {
        int exact = expectations_for(stage_name(stage_paths[k])).bit_exact;
        double bound = stated_bounds[k];
        if (bound < 0)
            fail_msg("%s: its manifest's max-differing-percent cannot be read", stage_name(stage_paths[k]));
        if (exact != (bound == 0))
            fail_msg("%s: bit-exact %d but stated bound %.4f%%", stage_name(stage_paths[k]), exact, bound);
        not_exact += !exact;
    }
    print_message("# %d stage(s) change the arithmetic on purpose\n", not_exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stage_renders_quick_scene_like_stage_01_and_the_cpu),
        cmocka_unit_test(partial_blocks_render_right_too),
        cmocka_unit_test(reports_tell_copies_and_host_memory),
        cmocka_unit_test(block_size_can_be_swept_from_stage_03),
        cmocka_unit_test(rays_per_thread_keep_the_picture),
        cmocka_unit_test(rays_per_thread_only_where_a_stage_takes_it),
        cmocka_unit_test(register_cap_raises_occupancy),
        cmocka_unit_test(streamed_png_has_stage_21s_pixels),
        cmocka_unit_test(rows_over_gpus_keep_stage_21s_pixels),
        cmocka_unit_test(balanced_rows_keep_stage_21s_pixels),
        cmocka_unit_test(thread_per_gpu_keeps_stage_21s_pixels),
        cmocka_unit_test(ranks_over_gpus_keep_stage_21s_pixels),
        cmocka_unit_test(big_scenes_over_gpus_keep_stage_33s_pixels),
        cmocka_unit_test(only_stages_that_change_the_arithmetic_state_a_bound),
    };
    return cmocka_run_group_tests_name("stages on the GPU", tests, setup, teardown);
}
