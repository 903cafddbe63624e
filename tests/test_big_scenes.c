/* The acceleration-structure chapters (the stages whose manifest's chapter is "4. Scenes that
 * grow" or "5. ...", the walk to its floor) against the CPU reference, bit for bit, on scenes the
 * benchmark is not: generated scenes of about 1,000, 10,000 and 100,000 overlapping spheres, spread
 * or in dense clumps with four large ones (scenes/generate-random.py, --clustered), and
 * made-up scenes that corner a hierarchy (the camera or the light inside a sphere, spheres behind
 * the camera, coincident spheres, radii from 0.001 to 10,000, odd and tiny sizes). Every earlier
 * stage refuses a scene over its limit in one line. The path tracer's chapters P4 and P5 likewise against
 * build/pt-reference on generated scenes of the same sizes: the differential test's random
 * scenes stop below 2,000 spheres, and p15's build merges over the whole GPU only above 4,096.
 * Needs a GPU (skips without one).
 * How the work is spread: a test writes all its scenes at once, then renders each scene once with
 * its reference and with every stage of the chapter, all in one batch that runs TEST_GPU_JOBS at a
 * time (default the cores, at most 16; tests/test_support.h's batch_run()), then compares every
 * stage's image with its scene's reference at once, and only then checks the results and prints
 * its lines, scene by scene and stage by stage, in the order and with the messages of one run at
 * a time. */
#include "test_support.h"

#define MAX_CHAPTER_STAGES 32

static char chapter_stages[MAX_CHAPTER_STAGES][128];
static int chapter_count;
static char pt_chapter_stages[MAX_CHAPTER_STAGES][128];
static int pt_chapter_count;
static char folder[64];

/* The stages whose manifest's chapter matches PREFIX ("[45]\\. ", "P[45]\\. "), into STAGES. */
static int read_chapter(const char *prefix, char stages[][128])
{
    struct command_result *r =
        run_shell("tools/stages table | awk -F'\\t' 'NR > 1 && $4 ~ /^%s/ { print $1 }'", prefix);
    int count = 0;
    char *cursor = r->out;
    for (char *line; count < MAX_CHAPTER_STAGES && (line = next_line(&cursor));)
        snprintf(stages[count++], sizeof stages[0], "%.127s", line);
    return count;
}

static int setup(void **state)
{
    (void)state;
    chapter_count = read_chapter("[45]\\. ", chapter_stages);
    pt_chapter_count = read_chapter("P[45]\\. ", pt_chapter_stages);
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    return chapter_count > 0 && pt_chapter_count > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

/* A scene a test renders: its file, and what its lines call it. */
struct scene_case {
    char path[128], what[96];
};

/* Renders each of the COUNT_SCENES SCENES with REFERENCE (cpu-reference, or pt-reference with the
 * chapter's estimator, path) and with each of the COUNT STAGES, and requires the same bytes (PPM
 * files, compared whole). WRITERS, when not NULL, is the batch that wrote the scenes, command s
 * scene s: each must have succeeded. The references and every stage on every scene run in one
 * batch, the comparisons in a second; the checks then go scene by scene, stage by stage. */
static void same_bits(const char *reference, char stages[][128], int count, const struct batch *writers,
                      const struct scene_case *scenes, int count_scenes)
{
    /* Runs 0 to count_scenes - 1: the references, into RUN.ppm; then scene s's stage k at
     * count_scenes + s * count + k, into its RUN.ppm too. */
    struct batch renders, compares;
    batch_begin(&renders, folder, "renders");
    for (int s = 0; s < count_scenes; s++)
        batch_add(&renders, "%s/%s --scene '%s' --output '%s/%d.ppm'", test_build_dir(), reference, scenes[s].path,
                  renders.folder, renders.count);
    for (int s = 0; s < count_scenes; s++)
        for (int k = 0; k < count; k++)
            /* A stage that hangs fails here (status 124) rather than stopping the tests. */
            batch_add(&renders, "timeout 120 %s/%s --scene '%s' --output '%s/%d.ppm'", test_build_dir(), stages[k],
                      scenes[s].path, renders.folder, renders.count);
    batch_run(&renders);
    /* Comparison s * count + k: scene s's reference and stage k's image. */
    batch_begin(&compares, folder, "compares");
    for (int s = 0; s < count_scenes; s++)
        for (int k = 0; k < count; k++)
            batch_add(&compares, "cmp -s '%s/%d.ppm' '%s/%d.ppm' || %s/compare-images '%s/%d.ppm' '%s/%d.ppm'",
                      renders.folder, s, renders.folder, count_scenes + s * count + k, test_build_dir(),
                      renders.folder, s, renders.folder, count_scenes + s * count + k);
    batch_run(&compares);
    for (int s = 0; s < count_scenes; s++) {
        if (writers)
            assert_int_equal(batch_result(writers, s)->exit_code, 0);
        struct command_result *r = batch_result(&renders, s);
        if (r->exit_code != 0)
            fail_msg("%s on %s: %s", reference, scenes[s].what, r->err);
        for (int k = 0; k < count; k++) {
            r = batch_result(&renders, count_scenes + s * count + k);
            if (r->exit_code != 0)
                fail_msg("%s on %s: exit status %d: %s", stages[k], scenes[s].what, r->exit_code, r->err);
            r = batch_result(&compares, s * count + k);
            if (r->exit_code != 0)
                fail_msg("%s on %s differs from build/%s: %s", stages[k], scenes[s].what, reference, r->out);
            print_message("# %s: %s identical to build/%s\n", stages[k], scenes[s].what, reference);
        }
    }
    remove_temporary_folder(renders.folder);
}

/* The main chapter against the CPU reference; the path tracer's against its own. */
static void same_bits_on(const struct batch *writers, const struct scene_case *scenes, int count_scenes)
{
    same_bits("cpu-reference", chapter_stages, chapter_count, writers, scenes, count_scenes);
}

static void same_pt_bits_on(const struct batch *writers, const struct scene_case *scenes, int count_scenes)
{
    same_bits("pt-reference", pt_chapter_stages, pt_chapter_count, writers, scenes, count_scenes);
}

static void generated_scenes_of_every_size(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const struct {
        int count;
        const char *size, *shape;
    } cases[] = {{999, "160x120", ""},          {9999, "96x72", ""},
                 {99999, "64x48", ""},          {4999, "33x17", ""},
                 {999, "96x72", "--clustered"}, {9999, "80x60", "--clustered"},
                 {99999, "64x48", "--clustered"}};
    const int count = sizeof cases / sizeof *cases;
    struct scene_case scenes[sizeof cases / sizeof *cases];
    struct batch writers;
    batch_begin(&writers, folder, "writers");
    for (int c = 0; c < count; c++) {
        snprintf(scenes[c].path, sizeof scenes[c].path, "%s/random-%d%s.scene", folder, cases[c].count,
                 cases[c].shape);
        batch_add(&writers, "python3 scenes/generate-random.py %d --size %s --seed %d %s > '%s'", cases[c].count,
                  cases[c].size, c + 7, cases[c].shape, scenes[c].path);
        snprintf(scenes[c].what, sizeof scenes[c].what, "%d random spheres%s at %s", cases[c].count + 1,
                 cases[c].shape[0] ? " in clumps" : "", cases[c].size);
    }
    batch_run(&writers);
    same_bits_on(&writers, scenes, count);
}

/* The path tracer's chapter on generated scenes of the same sizes: random materials (diffuse,
 * metal, mirror, glass), the benchmark's floor and two lamps, 2 samples a pixel. */
static void path_traced_scenes_of_every_size(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const struct {
        int count;
        const char *size;
    } cases[] = {{997, "96x72"}, {9997, "64x48"}, {99997, "48x36"}, {4997, "33x17"}};
    const int count = sizeof cases / sizeof *cases;
    struct scene_case scenes[sizeof cases / sizeof *cases];
    struct batch writers;
    batch_begin(&writers, folder, "writers");
    for (int c = 0; c < count; c++) {
        snprintf(scenes[c].path, sizeof scenes[c].path, "%s/pt-random-%d.scene", folder, cases[c].count);
        batch_add(&writers, "python3 scenes/generate-random.py %d --path-tracing --size %s --seed %d > '%s'",
                  cases[c].count, cases[c].size, c + 11, scenes[c].path);
        snprintf(scenes[c].what, sizeof scenes[c].what, "%d random spheres at %s", cases[c].count + 3,
                 cases[c].size);
    }
    batch_run(&writers);
    same_pt_bits_on(&writers, scenes, count);
}

/* Scenes written here, each a corner of the specification a hierarchy must get right. */
static void scenes_that_corner_a_hierarchy(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const char *common = "background 94 156 255\nlight_colour 1 1 1\nambient 0.1\ndiffuse 0.7\n"
                         "specular 0.7\n";
    const struct {
        const char *what, *text;
    } cases[] = {
        {"the camera inside a sphere", "size 48 40\ncamera 0 0 1\nlight 1 1 1\n"
         "sphere 3 0 0 0 0.2 0.8 0.2\nsphere 0.3 0.5 0 -1 0.9 0.1 0.1\nsphere 0.3 -0.5 0 -1 0.1 0.1 0.9\n"},
        {"the light inside a sphere", "size 40 48\ncamera 0 0 1\nlight 0 0 -3\n"
         "sphere 0.5 0 0 -3 0.9 0.9 0.2\nsphere 1000 0 -1002 0 0.5 0.5 0.5\nsphere 0.25 0.6 0 -2 0.3 0.3 0.9\n"},
        {"spheres behind the camera and coincident spheres", "size 37 29\ncamera 0 0 1\nlight 2 3 1\n"
         "sphere 0.5 0 0 3 1 0 0\nsphere 0.5 0 0 -2 0 1 0\nsphere 0.5 0 0 -2 0 0 1\nsphere 0.5 0 0 -2 1 1 0\n"
         "sphere 0.7 0.3 0.2 -2.5 0 1 1\nsphere 1000 0 -1002 0 0.5 0.5 0.5\n"},
        {"radii from 0.001 to 10,000", "size 64 64\ncamera 0 0 1\nlight 1 1 1\n"
         "sphere 10000 0 -10002 0 0.6 0.6 0.6\nsphere 0.001 0 0 -0.5 1 0 0\nsphere 0.002 0.01 0 -0.6 0 1 0\n"
         "sphere 0.05 -0.2 -0.1 -1 0 0 1\nsphere 5 0 3 -40 0.9 0.9 0.9\nsphere 0.001 0.001 0.001 -0.5 1 1 1\n"},
        {"a 2x2 image", "size 2 2\ncamera 0 0 1\nlight 1 1 1\nsphere 0.5 0 0 -2 1 0 0\nsphere 0.5 0.2 0 -2.1 0 1 0\n"},
        {"one sphere", "size 31 23\ncamera 0 0 1\nlight 1 1 1\nsphere 0.5 0 0 -2 1 0 0\n"},
    };
    const int count = sizeof cases / sizeof *cases;
    struct scene_case scenes[sizeof cases / sizeof *cases];
    for (int c = 0; c < count; c++) {
        snprintf(scenes[c].path, sizeof scenes[c].path, "%s/corner-%d.scene", folder, c);
        snprintf(scenes[c].what, sizeof scenes[c].what, "%s", cases[c].what);
        FILE *file = fopen(scenes[c].path, "w");
        assert_non_null(file);
        fprintf(file, "%s%s", common, cases[c].text);
        fclose(file);
    }
    same_bits_on(NULL, scenes, count);
}

/* Many small spheres around a larger scene's: the stages of the chapter take 5,000 spheres, and
 * stage 21 refuses them in one line before touching the GPU. */
static void only_the_chapter_takes_thousands_of_spheres(void **state)
{
    (void)state;
    char scene[128], reason[512];
    const int gpu = gpu_available(reason, sizeof reason);
    snprintf(scene, sizeof scene, "%s/five-thousand.scene", folder);
    assert_int_equal(run_shell("python3 scenes/generate-random.py 4999 --size 16x16 > '%s'", scene)->exit_code, 0);
    struct command_result *r = run_shell("%s/21-persistent-rows --scene '%s'", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "5000 spheres, but stage 21-persistent-rows holds at most 1024"));
    struct batch runs; /* run k: stage k's */
    batch_begin(&runs, folder, "five-thousand");
    for (int k = 0; k < chapter_count; k++)
        batch_add(&runs, "timeout 120 %s/%s --scene '%s' --output '%s/%d.ppm'", test_build_dir(), chapter_stages[k],
                  scene, runs.folder, k);
    batch_run(&runs);
    for (int k = 0; k < chapter_count; k++) {
        r = batch_result(&runs, k);
        /* Without a GPU the stage stops at the GPU, past the scene's checks (only where none is
         * required: gpu_available() fails the test where one is). */
        if (strstr(r->err, "holds at most") ||
            (r->exit_code != 0 && (gpu || !strstr(r->err, "no CUDA-capable GPU"))))
            fail_msg("%s on 5,000 spheres: exit status %d: %s", chapter_stages[k], r->exit_code, r->err);
    }
}

/* The path tracer's likewise: p12 (constant memory) refuses 5,000 spheres in one line, the
 * stages of chapter P4 take them. */
static void only_the_path_tracing_chapter_takes_thousands_of_spheres(void **state)
{
    (void)state;
    char scene[128], reason[512];
    const int gpu = gpu_available(reason, sizeof reason);
    snprintf(scene, sizeof scene, "%s/pt-five-thousand.scene", folder);
    assert_int_equal(run_shell("python3 scenes/generate-random.py 4997 --path-tracing --size 16x16 > '%s'",
                               scene)->exit_code, 0);
    struct command_result *r = run_shell("%s/p12-host-work-behind-render --scene '%s'", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "5000 spheres, but stage p12-host-work-behind-render holds at most 1024"));
    struct batch runs; /* run k: stage k's */
    batch_begin(&runs, folder, "pt-five-thousand");
    for (int k = 0; k < pt_chapter_count; k++)
        batch_add(&runs, "timeout 120 %s/%s --scene '%s' --output '%s/%d.ppm'", test_build_dir(),
                  pt_chapter_stages[k], scene, runs.folder, k);
    batch_run(&runs);
    for (int k = 0; k < pt_chapter_count; k++) {
        r = batch_result(&runs, k);
        if (strstr(r->err, "holds at most") ||
            (r->exit_code != 0 && (gpu || !strstr(r->err, "no CUDA-capable GPU"))))
            fail_msg("%s on 5,000 spheres: exit status %d: %s", pt_chapter_stages[k], r->exit_code, r->err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generated_scenes_of_every_size),
        cmocka_unit_test(path_traced_scenes_of_every_size),
        cmocka_unit_test(scenes_that_corner_a_hierarchy),
        cmocka_unit_test(only_the_chapter_takes_thousands_of_spheres),
        cmocka_unit_test(only_the_path_tracing_chapter_takes_thousands_of_spheres),
    };
    return cmocka_run_group_tests_name("the acceleration-structure chapters", tests, setup, teardown);
}
