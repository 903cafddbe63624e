/* The differential test: tools/random-scene.py writes random valid scenes of both tracks, and
 * tools/difftest.sh runs every stage on them against the CPU references. Here:
 * - on a GPU, 8 seeds through every stage, with no failure (skipped, with the reason, without
 *   one; `make difftest SEEDS=200` runs longer), and the seeds that once found a margin too
 *   narrow (13, 38, 60) through the stages that had it;
 * - without a GPU: the generator is deterministic, every scene of 200 seeds of each track is one
 *   the CPU references accept, the scenes reach the corners the generator promises (measured on
 *   the parsed scenes, not taken from its word), and each scene's "# features:" line, which the
 *   driver prints for a failing seed, says only what the scene holds;
 * - the driver against fake stages (tests/fixtures): a stage that differs fails with its seed
 *   and the path of the kept scene, a stage over its limit is skipped and counted, one whose
 *   manifest allows differing pixels is counted apart, a stage that renders no scene exactly
 *   (every one over its limit, or allowed to differ) fails in one line naming it, and without a
 *   GPU the driver says it skipped (status 77).
 * How the work is spread: tools/difftest.sh renders each scene's references once, then runs every
 * (seed, stage) pair, TEST_GPU_JOBS at a time (its --jobs; default the cores, at most 16:
 * tests/test_support.h's test_gpu_jobs()), and prints its counts and failures in seed and stage
 * order. Nearly all of its time is the stages' runs, one process each (8 seeds x every stage).
 * Run from the repository root. */
#include "test_support.h"

#include <limits.h>
#include <math.h>

#include "pathtrace/pt_scene.h"
#include "raytrace/scene.h"

#define SEEDS 200    /* scenes of each track the GPU-free tests check */
/* Seeds make test runs through every stage on a GPU: 24 took more than 5 minutes of an H200 with
 * 90 stages; the full differential test is `make difftest SEEDS=200`. */
#define GPU_SEEDS 8
/* Stage 01 holds 512 spheres; stages 11-21a and p07-p09f 1,024; stages 07-10 1,755. */
#define SMALLEST_LIMIT 512
#define LARGEST_COUNT 1756 /* the most the generator writes: one past stages 07-10's limit */
#define MAX_SIDE 300       /* its largest side: scenes small enough to render at once */

static char folder[64];       /* this program's temporary folder */
static char scenes[128];      /* folder/scenes: SEEDS scenes of each track */
static char fixtures[PATH_MAX];

static int setup(void **state)
{
    (void)state;
    snprintf(folder, sizeof folder, "%s", make_temporary_folder());
    snprintf(scenes, sizeof scenes, "%s/scenes", folder);
    char here[PATH_MAX - 32];
    if (!getcwd(here, sizeof here))
        return -1;
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", here);
    for (int pt = 0; pt < 2; pt++) {
        struct command_result *r = run_shell("python3 tools/random-scene.py --track %s --seeds 1-%d --out-dir '%s'",
                                             pt ? "pt" : "main", SEEDS, scenes);
        if (r->exit_code != 0) {
            fprintf(stderr, "tools/random-scene.py: %s", r->err);
            return -1;
        }
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_temporary_folder(folder);
    return 0;
}

/* ---- A scene as the stages read it, and what it holds ---------------------------------------- */

struct ball {
    double centre[3], radius;
    int material; /* enum pt_material_kind; -1 on the main track */
    double parameter;
};

struct parsed {
    int pt, width, height, count;
    double camera[3], distance, forward[3]; /* the camera's distance from the image plane's centre */
    struct ball *balls;
    int has_light;
    double light[3];
    struct scene main; /* the main track's scene, or the path tracer's: */
    struct pt_scene path;
    char features[2048]; /* the words of the "# features:" line */
};

static const double plane_centre[3] = {0.0, 0.0, -1.0};

static void of_vec(const struct spec_vec3 v, double out[3])
{
    out[0] = v.x, out[1] = v.y, out[2] = v.z;
}

/* As tools/random-scene.py measures, in doubles and in the same order. */
static double apart(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static int same_point(const double a[3], const double b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static void load(int pt, int seed, struct parsed *s)
{
    char path[256], error[SCENE_ERROR_BYTES], text[4096];
    memset(s, 0, sizeof *s);
    s->pt = pt;
    snprintf(path, sizeof path, "%s/%s-seed-%d.scene", scenes, pt ? "pt" : "main", seed);
    if (pt) {
        if (pt_scene_load(path, &s->path, error, sizeof error))
            fail_msg("%s", error);
        s->width = s->path.width, s->height = s->path.height, s->count = s->path.sphere_count;
        of_vec(s->path.camera, s->camera);
    } else {
        if (scene_load(path, &s->main, error, sizeof error))
            fail_msg("%s", error);
        s->width = s->main.width, s->height = s->main.height, s->count = s->main.sphere_count;
        of_vec(s->main.camera, s->camera);
        of_vec(s->main.light_position, s->light);
        s->has_light = 1;
    }
    s->balls = calloc((size_t)s->count, sizeof *s->balls);
    assert_non_null(s->balls);
    for (int k = 0; k < s->count; k++) {
        struct ball *b = &s->balls[k];
        if (pt) {
            of_vec(s->path.spheres[k].centre, b->centre);
            b->radius = s->path.spheres[k].radius;
            b->material = s->path.materials[k].kind;
            b->parameter = s->path.materials[k].parameter;
        } else {
            of_vec(s->main.spheres[k].centre, b->centre);
            b->radius = s->main.spheres[k].radius;
            b->material = -1;
        }
    }
    s->distance = apart(s->camera, plane_centre);
    for (int i = 0; i < 3; i++)
        s->forward[i] = (plane_centre[i] - s->camera[i]) * (1.0 / s->distance);
    test_read_file(path, text, sizeof text);
    const char *line = strstr(text, "\n# features: ");
    assert_non_null(line);
    line += strlen("\n# features: ");
    snprintf(s->features, sizeof s->features, "%.*s", (int)strcspn(line, "\n"), line);
}

static void unload(struct parsed *s)
{
    free(s->balls);
    if (s->pt)
        pt_scene_free(&s->path);
    else
        scene_free(&s->main);
}

/* What a scene holds: each field 1 when it does (the definitions tools/random-scene.py's
 * description uses). */
struct holds {
    int camera_inside, behind_camera, light_inside, light_beside, light_at_centre, light_at_camera,
        light_far, ground, coincident, overlapping, nested, emitter_inside;
};

static struct holds measure(const struct parsed *s)
{
    struct holds h = {0};
    for (int k = 0; k < s->count; k++) {
        const struct ball *b = &s->balls[k];
        const double to_centre[3] = {b->centre[0] - s->camera[0], b->centre[1] - s->camera[1],
                                     b->centre[2] - s->camera[2]};
        h.camera_inside |= apart(s->camera, b->centre) < 0.99 * b->radius;
        h.behind_camera |= to_centre[0] * s->forward[0] + to_centre[1] * s->forward[1] +
                               to_centre[2] * s->forward[2] <
                           -1.01 * b->radius;
        h.ground |= b->radius >= 50.0 * fmax(s->distance, 1.0);
        if (s->has_light) {
            const double d = apart(s->light, b->centre);
            h.light_inside |= d < 0.99 * b->radius;
            h.light_beside |= 1.01 * b->radius < d && d < 1.5 * b->radius;
            h.light_at_centre |= same_point(s->light, b->centre);
        }
        for (int j = 0; j < s->count; j++) {
            const struct ball *o = &s->balls[j];
            const double gap = apart(b->centre, o->centre);
            const int same = same_point(b->centre, o->centre) && b->radius == o->radius;
            if (j == k)
                continue;
            h.coincident |= same;
            h.overlapping |= gap < 0.99 * (b->radius + o->radius) && !same;
            h.nested |= gap + fmin(b->radius, o->radius) < 0.99 * fmax(b->radius, o->radius);
            h.emitter_inside |= o->material == PT_LIGHT && gap + o->radius < 0.99 * b->radius;
        }
    }
    if (s->has_light) {
        h.light_at_camera = same_point(s->light, s->camera);
        h.light_far = apart(s->light, s->camera) > 99.0 * s->distance;
    }
    return h;
}

/* ---- Without a GPU: the generator ---------------------------------------------------------- */

static void the_generator_is_deterministic(void **state)
{
    (void)state;
    for (int pt = 0; pt < 2; pt++) {
        const char *track = pt ? "pt" : "main";
        /* Twice the same bytes, and the same again from the batch of every seed. */
        struct command_result *r = run_shell(
            "python3 tools/random-scene.py --track %s --seed 7 --output '%s/once.scene' && "
            "python3 tools/random-scene.py --track %s --seed 7 > '%s/twice.scene' && "
            "cmp '%s/once.scene' '%s/twice.scene' && cmp '%s/once.scene' '%s/%s-seed-7.scene'",
            track, folder, track, folder, folder, folder, folder, scenes, track);
        if (r->exit_code != 0)
            fail_msg("seed 7 of the %s track twice: %s%s", track, r->out, r->err);
        /* Every seed its own scene. */
        r = run_shell("cat '%s'/%s-seed-*.scene | grep -c '^size'; md5sum '%s'/%s-seed-*.scene | cut -d' ' -f1 | "
                      "sort -u | wc -l", scenes, track, scenes, track);
        int files = 0, distinct = 0;
        assert_int_equal(sscanf(r->out, "%d %d", &files, &distinct), 2);
        assert_int_equal(files, SEEDS);
        assert_int_equal(distinct, SEEDS);
        print_message("# %s track: seed 7 gives the same bytes every time; %d seeds, %d different scenes\n",
                      track, SEEDS, distinct);
    }
    /* A bad option is one line and status 2. */
    struct command_result *r = run_shell("python3 tools/random-scene.py --track main --seed -1");
    assert_int_equal(r->exit_code, 2);
    r = run_shell("python3 tools/random-scene.py --track main --seeds 5-3 --out-dir '%s/x'", folder);
    assert_int_equal(r->exit_code, 2);
}

/* The front door: the CPU reference of each track accepts every scene (its checks are the
 * stages'; a quick render at 2x2 after reading the scene at its own size). */
static void the_references_accept_every_scene(void **state)
{
    (void)state;
    const char *build = test_build_dir();
    struct command_result *r = run_shell(
        "for f in '%s'/main-seed-*.scene; do %s/cpu-reference --scene \"$f\" --size 2x2 --threads 1 "
        "--output '%s/main.ppm' >/dev/null 2>'%s/err' && echo accepted || echo \"refused: $(cat '%s/err')\"; done; "
        "for f in '%s'/pt-seed-*.scene; do %s/pt-reference --scene \"$f\" --size 2x2 --samples 1 --threads 1 "
        "--output '%s/pt.ppm' >/dev/null 2>'%s/err' && echo accepted || echo \"refused: $(cat '%s/err')\"; done",
        scenes, build, folder, folder, folder, scenes, build, folder, folder, folder);
    const char *refused = strstr(r->out, "refused");
    if (refused)
        fail_msg("%.400s", refused);
    int accepted = 0;
    for (const char *p = r->out; (p = strstr(p, "accepted")); p++)
        accepted++;
    assert_int_equal(accepted, 2 * SEEDS);
    print_message("# %s/cpu-reference and %s/pt-reference accept all %d scenes of each track\n", build,
                  build, SEEDS);
}

/* Sizes and counts: small and odd sizes, most scenes within the smallest stage limit (so every
 * stage runs on most seeds), a few past each limit. */
static void sizes_and_counts(void **state)
{
    (void)state;
    for (int pt = 0; pt < 2; pt++) {
        int tiny = 0, odd = 0, few_rows = 0, wide = 0, within = 0, past_1024 = 0, past_512 = 0, edge = 0;
        int largest = 0, largest_side = 0;
        for (int seed = 1; seed <= SEEDS; seed++) {
            struct parsed s;
            load(pt, seed, &s);
            tiny += s.width * s.height <= 6;
            odd += s.width % 2 || s.height % 2;
            few_rows += s.height < 16; /* fewer rows than stage 10 has bands */
            wide += s.width > 256 || s.height > 256;
            within += s.count <= SMALLEST_LIMIT;
            past_512 += s.count > SMALLEST_LIMIT && s.count <= 1024;
            past_1024 += s.count > 1024;
            edge += s.count == 512 || s.count == 513 || s.count == 1024 || s.count == 1025 ||
                    s.count == 1755 || s.count == 1756;
            largest = s.count > largest ? s.count : largest;
            largest_side = s.width > largest_side ? s.width : largest_side;
            largest_side = s.height > largest_side ? s.height : largest_side;
            unload(&s);
        }
        print_message("# %s track, %d scenes: %d of at most 6 pixels, %d of an odd side, %d under 16 rows, "
                      "%d over 256 a side (at most %d); %d within %d spheres, %d of 513-1024, %d over "
                      "1024 (at most %d), %d at a limit's edge\n",
                      pt ? "pt" : "main", SEEDS, tiny, odd, few_rows, wide, largest_side, within,
                      SMALLEST_LIMIT, past_512, past_1024, largest, edge);
        assert_true(tiny >= 5 && odd >= SEEDS / 2 && few_rows >= 20 && wide >= 1);
        assert_true(largest_side <= MAX_SIDE);
        assert_true(within >= SEEDS * 80 / 100);
        assert_true(past_512 >= 1 && past_1024 >= 1 && edge >= 1);
        assert_true(largest <= LARGEST_COUNT);
    }
}

/* The corners, counted on the parsed scenes of each track. */
static void the_scenes_reach_the_corners(void **state)
{
    (void)state;
    for (int pt = 0; pt < 2; pt++) {
        struct holds total = {0};
        int large = 0, small = 0, tiny_radius = 0, huge_radius = 0, zero_coefficient = 0, full = 0;
        int no_light = 0, many_lights = 0, kinds[PT_MATERIAL_KINDS] = {0}, ends = 0, depth_ends = 0;
        int bright = 0;
        for (int seed = 1; seed <= SEEDS; seed++) {
            struct parsed s;
            load(pt, seed, &s);
            const struct holds h = measure(&s);
            total.camera_inside += h.camera_inside, total.behind_camera += h.behind_camera;
            total.light_inside += h.light_inside, total.light_beside += h.light_beside;
            total.light_at_centre += h.light_at_centre, total.light_at_camera += h.light_at_camera;
            total.light_far += h.light_far, total.ground += h.ground;
            total.coincident += h.coincident, total.overlapping += h.overlapping;
            total.nested += h.nested, total.emitter_inside += h.emitter_inside;
            large += s.distance >= 1e4;
            small += s.distance <= 1e-2;
            double least = INFINITY, most = 0;
            int seen[PT_MATERIAL_KINDS] = {0};
            for (int k = 0; k < s.count; k++) {
                const struct ball *b = &s.balls[k];
                least = fmin(least, b->radius), most = fmax(most, b->radius);
                if (pt) {
                    seen[b->material] = 1;
                    ends += (b->material == PT_METAL && (b->parameter == 0 || b->parameter == 1)) ||
                            (b->material == PT_GLASS && (b->parameter == 1 || b->parameter == 4));
                }
            }
            tiny_radius += least <= 1e-4;
            huge_radius += most >= 1e6;
            if (pt) {
                for (int m = 0; m < PT_MATERIAL_KINDS; m++)
                    kinds[m] += seen[m];
                no_light += s.path.light_count == 0;
                many_lights += s.path.light_count > PT_NEE_CANDIDATES;
                depth_ends += s.path.max_depth == 1 || s.path.max_depth == PT_SCENE_MAX_DEPTH;
                bright += s.path.sky.x >= 100 || s.path.sky.y >= 100 || s.path.sky.z >= 100;
            } else {
                zero_coefficient += s.main.ambient == 0 || s.main.specular == 0 || s.main.diffuse == 0;
                full += s.main.light_colour.x == 1 || s.main.background.x == 255;
            }
            unload(&s);
        }
        print_message("# %s track, %d scenes: camera inside a sphere %d, spheres behind the camera %d, "
                      "coincident %d, overlapping %d, nested %d, a ground %d; camera 1e4 or more from the "
                      "image plane %d, 1e-2 or less %d; a radius of 1e-4 or less %d, of 1e6 or more %d\n",
                      pt ? "pt" : "main", SEEDS, total.camera_inside, total.behind_camera,
                      total.coincident, total.overlapping, total.nested, total.ground, large, small,
                      tiny_radius, huge_radius);
        assert_true(total.camera_inside >= 10 && total.behind_camera >= SEEDS / 2);
        assert_true(total.coincident >= 20 && total.overlapping >= 20 && total.nested >= 10);
        assert_true(total.ground >= 20);
        assert_true(large >= 5 && small >= 5 && tiny_radius >= 5 && huge_radius >= 5);
        if (pt) {
            print_message("# pt track: diffuse %d, mirror %d, metal %d, glass %d, light %d scenes; no light "
                          "%d, more than %d lights %d, a light inside a sphere %d; fuzz or ior at an end %d "
                          "spheres; depth 1 or 64 %d; a sky of 100 or more %d\n",
                          kinds[PT_DIFFUSE], kinds[PT_MIRROR], kinds[PT_METAL], kinds[PT_GLASS],
                          kinds[PT_LIGHT], no_light, PT_NEE_CANDIDATES, many_lights,
                          total.emitter_inside, ends, depth_ends, bright);
            for (int m = 0; m < PT_MATERIAL_KINDS; m++)
                assert_true(kinds[m] >= SEEDS / 4);
            assert_true(no_light >= 10 && many_lights >= 10 && total.emitter_inside >= 10);
            assert_true(ends >= 10 && depth_ends >= 10 && bright >= 5);
        } else {
            print_message("# main track: the light inside a sphere %d, just outside one %d, at a sphere's "
                          "centre %d, at the camera %d, far away %d; a coefficient 0 %d, a colour at its "
                          "top %d\n",
                          total.light_inside, total.light_beside, total.light_at_centre,
                          total.light_at_camera, total.light_far, zero_coefficient, full);
            assert_true(total.light_inside >= 10 && total.light_beside >= 10);
            assert_true(total.light_at_centre >= 3 && total.light_at_camera >= 3 && total.light_far >= 10);
            assert_true(zero_coefficient >= 10 && full >= 10);
        }
    }
}

/* Each word of a scene's "# features:" line is true of the parsed scene. */
static void each_description_is_true(void **state)
{
    (void)state;
    int words = 0;
    for (int pt = 0; pt < 2; pt++) {
        for (int seed = 1; seed <= SEEDS; seed++) {
            struct parsed s;
            load(pt, seed, &s);
            const struct holds h = measure(&s);
            char list[sizeof s.features];
            snprintf(list, sizeof list, "%s", s.features);
            for (char *save = NULL, *word = strtok_r(list, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
                int width, height, number, kinds_named = 0, kinds_held = 0;
                double scale;
                char materials[256];
                int ok;
                if (sscanf(word, "size=%dx%d", &width, &height) == 2)
                    ok = width == s.width && height == s.height;
                else if (sscanf(word, "spheres=%d", &number) == 1)
                    ok = number == s.count;
                else if (sscanf(word, "scale=%lf", &scale) == 1)
                    ok = fabs(scale - s.distance) <= 0.06 * s.distance; /* two digits */
                else if (sscanf(word, "lights=%d", &number) == 1)
                    ok = pt && number == s.path.light_count;
                else if (sscanf(word, "materials=%255s", materials) == 1) {
                    for (int m = 0; m < PT_MATERIAL_KINDS; m++) {
                        int held = 0;
                        for (int k = 0; k < s.count; k++)
                            held |= s.balls[k].material == m;
                        kinds_held += held;
                        kinds_named += strstr(materials, pt_material_name(m)) != NULL;
                        if (held != (strstr(materials, pt_material_name(m)) != NULL))
                            kinds_named = -100;
                    }
                    ok = pt && kinds_named == kinds_held;
                } else {
                    const struct {
                        const char *word;
                        int holds;
                    } claims[] = {
                        {"camera-inside", h.camera_inside}, {"behind-camera", h.behind_camera},
                        {"light-inside", h.light_inside},   {"light-beside", h.light_beside},
                        {"light-at-centre", h.light_at_centre}, {"light-at-camera", h.light_at_camera},
                        {"light-far", h.light_far},         {"ground", h.ground},
                        {"coincident", h.coincident},       {"overlapping", h.overlapping},
                        {"nested", h.nested},               {"emitter-inside", h.emitter_inside},
                    };
                    ok = -1;
                    for (size_t c = 0; c < sizeof claims / sizeof *claims; c++)
                        if (strcmp(word, claims[c].word) == 0)
                            ok = claims[c].holds;
                    if (ok == -1)
                        fail_msg("%s seed %d: the description's word '%s' is not one this test knows",
                                 pt ? "pt" : "main", seed, word);
                }
                if (!ok)
                    fail_msg("%s seed %d: the description says '%s', the scene does not hold it (%s)",
                             pt ? "pt" : "main", seed, word, s.features);
                words++;
            }
            unload(&s);
        }
    }
    print_message("# %d words of %d descriptions, each true of its scene\n", words, 2 * SEEDS);
}

/* ---- On a GPU: every stage on GPU_SEEDS seeds ------------------------------------------------ */

struct difftest_counts {
    int seeds, stages, exact, allowed, limit, failed;
};

/* Runs tools/difftest.sh ARGS on the built stages and reads its last line; skips without a GPU
 * (fails instead under REQUIRE_GPU=1 or with a GPU here: skip_without_gpu()), fails with the
 * driver's output when it fails or prints no count. */
static struct difftest_counts run_difftest(const char *args)
{
    struct command_result *r =
        run_shell("tools/difftest.sh %s --jobs %d --bin-dir '%s'", args, test_gpu_jobs(), test_build_dir());
    if (r->exit_code == 77) {
        char said[512];
        snprintf(said, sizeof said, "%.*s", (int)strcspn(r->out, "\n"), r->out);
        skip_without_gpu(said);
    }
    /* The last line, after the first ("... stages on GPU"). */
    const char *summary = strstr(r->out, " stages: ");
    struct difftest_counts c = {0, 0, -1, -1, -1, -1};
    if (summary)
        while (summary > r->out && summary[-1] != '\n')
            summary--;
    if (r->exit_code != 0 || !summary ||
        sscanf(summary, "difftest: %d seeds x %d stages: %d exact, %d allowed to differ, %d skipped (limit), %d failed",
               &c.seeds, &c.stages, &c.exact, &c.allowed, &c.limit, &c.failed) != 6)
        fail_msg("tools/difftest.sh %s: exit status %d\n%.6000s%.2000s", args, r->exit_code, r->out, r->err);
    for (const char *line = r->out; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0'))
        print_message("# %.*s\n", (int)strcspn(line, "\n"), line);
    return c;
}

static void every_stage_has_the_references_bits(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    struct command_result *r = run_shell("tools/stages list | wc -l");
    const int stages = atoi(r->out);
    assert_true(stages > 0);
    char args[64];
    snprintf(args, sizeof args, "--seeds %d", GPU_SEEDS);
    const struct difftest_counts c = run_difftest(args);
    assert_int_equal(c.seeds, GPU_SEEDS);
    assert_int_equal(c.stages, stages);
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.exact + c.allowed + c.limit, c.seeds * c.stages);
    /* Most scenes are within every stage's limit: the stages run, not skip. */
    assert_true(c.limit * 4 <= c.seeds * c.stages);
}

/* The seeds that found a margin too narrow, kept on the stages that had it (stage 14's README,
 * "What random scenes found"): 13, a tile's rays fanning out past a right angle (12b, 14-21a);
 * 38 and 60, shadow rays from far away past the light cells' angle (14-21a; 38 the first seed
 * the CPU emulation flagged, 60 the first the differential test met). */
static void the_seeds_that_found_a_margin_stay_exact(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    const char *spec = "12b,14-21";
    struct command_result *r = run_shell("tools/stages select %s | wc -l", spec);
    const int stages = atoi(r->out);
    assert_int_equal(stages, 13);
    char args[64];
    snprintf(args, sizeof args, "--seed-list 13,38,60 --stages %s", spec);
    const struct difftest_counts c = run_difftest(args);
    assert_int_equal(c.seeds, 3);
    assert_int_equal(c.stages, stages);
    assert_int_equal(c.failed, 0);
    assert_int_equal(c.allowed, 0);
    /* Every one of the three scenes is within these stages' 1,024 spheres (13 holds 915). */
    assert_int_equal(c.limit, 0);
    assert_int_equal(c.exact, 3 * stages);
}

/* ---- The driver, against fake stages --------------------------------------------------------- */

/* DIR/stages: 01-base, 02-static and p01-base's manifests (02-static's with EXTRA lines); DIR/bin:
 * the fake stages, references and compare-images of tests/fixtures. */
static void fake_stages(const char *dir, const char *extra)
{
    const char *manifests[][2] = {
        {"01-base", "lesson: a fake stage\nbuilds-on: none\nchapter: Fake\n"},
        {"02-static", "lesson: a fake stage\nbuilds-on: 01-base\nchapter: Fake\n"},
        {"p01-base", "lesson: a fake stage\nbuilds-on: none\nchapter: P. Fake\nestimator: path\n"},
    };
    for (size_t m = 0; m < 3; m++) {
        char path[256];
        snprintf(path, sizeof path, "%s/stages/%s", dir, manifests[m][0]);
        assert_int_equal(run_shell("mkdir -p '%s'", path)->exit_code, 0);
        snprintf(path, sizeof path, "%s/stages/%s/manifest", dir, manifests[m][0]);
        FILE *file = fopen(path, "w");
        assert_non_null(file);
        fprintf(file, "%s%s", manifests[m][1], m == 1 && extra ? extra : "");
        assert_int_equal(fclose(file), 0);
    }
    assert_int_equal(run_shell("mkdir -p '%s/bin' && cd '%s' && cp fake-stage.sh '%s/bin/01-base' && "
                               "cp fake-stage.sh '%s/bin/02-static' && cp fake-pt-stage.sh '%s/bin/p01-base' && "
                               "cp fake-cpu-reference.sh '%s/bin/cpu-reference' && "
                               "cp fake-pt-reference.sh '%s/bin/pt-reference' && "
                               "cp fake-compare-images.sh '%s/bin/compare-images'",
                               dir, fixtures, dir, dir, dir, dir, dir, dir)
                         ->exit_code,
                     0);
}

/* tools/difftest.sh with the fakes of DIR, ENV before it (FAKE_... variables), ARGS after. */
static struct command_result *difftest(const char *dir, const char *env, const char *args)
{
    return run_shell("STAGES_DIR='%s/stages' RUN_NVIDIA_SMI='%s/fake-nvidia-smi.sh' %s tools/difftest.sh "
                     "--bin-dir '%s/bin' --keep '%s/kept' --jobs 4 %s",
                     dir, fixtures, env, dir, dir, args);
}

static void the_driver_counts_every_run(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_stages(dir, NULL);
    struct command_result *r = difftest(dir, "", "--seeds 3");
    if (r->exit_code != 0)
        fail_msg("exit status %d: %s%s", r->exit_code, r->out, r->err);
    assert_non_null(strstr(r->out, "difftest: 3 seeds x 3 stages: 9 exact, 0 allowed to differ, "
                                   "0 skipped (limit), 0 failed\n"));
    /* A stage that refuses a scene over its limit is skipped and counted, not failed; the fake
     * stage refuses more than 100 spheres: seed 9's 162, not seed 4's 5. */
    r = difftest(dir, "FAKE_MAX_SPHERES=01-base:100", "--seed-list 4,9");
    if (r->exit_code != 0)
        fail_msg("exit status %d: %s%s", r->exit_code, r->out, r->err);
    assert_non_null(strstr(r->out, "difftest: 2 seeds x 3 stages: 5 exact, 0 allowed to differ, "
                                   "1 skipped (limit), 0 failed\n"));
    /* --stages picks some. */
    r = difftest(dir, "", "--seed-list 1 --stages p1");
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "difftest: 1 seeds x 1 stages: 1 exact,"));
    remove_temporary_folder(dir);
}

/* A stage that renders no scene exactly has not been shown exact: refusing every scene (here
 * more than 0 spheres, so all of them) is not a pass but one failure, in one line naming it. */
static void a_stage_with_no_exact_scene_fails(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_stages(dir, NULL);
    struct command_result *r = difftest(dir, "FAKE_MAX_SPHERES=01-base:0", "--seed-list 4,9");
    assert_int_equal(r->exit_code, 1);
    if (!strstr(r->out, "\ndifftest: FAILED 01-base over the run: no scene rendered exactly (2 of 2 over its "
                        "sphere limit, 0 allowed to differ)\n"))
        fail_msg("no line naming 01-base in:\n%s", r->out);
    assert_null(strstr(r->out, "FAILED 02-static"));
    assert_null(strstr(r->out, "FAILED p01-base"));
    assert_non_null(strstr(r->out, "difftest: 2 seeds x 3 stages: 4 exact, 0 allowed to differ, "
                                   "2 skipped (limit), 1 failed\n"));
    remove_temporary_folder(dir);
}

static void a_failing_seed_keeps_its_scene(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_stages(dir, NULL);
    struct command_result *r = difftest(dir, "FAKE_BAD_IMAGE=02-static", "--seed-list 5,6");
    assert_int_equal(r->exit_code, 1);
    static char out[TEST_OUTPUT_BYTES]; /* r is the next command's too */
    snprintf(out, sizeof out, "%s", r->out);
    for (int seed = 5; seed <= 6; seed++) {
        char line[512], kept[256];
        snprintf(line, sizeof line, "difftest: FAILED 02-static on seed %d: differing pixels: 1 of 1", seed);
        if (!strstr(out, line))
            fail_msg("no line '%s' in:\n%s", line, out);
        snprintf(kept, sizeof kept, "%s/kept/main-seed-%d.scene", dir, seed);
        snprintf(line, sizeof line, "scene kept as %s (size=", kept);
        if (!strstr(out, line))
            fail_msg("no line '%s' in:\n%s", line, out);
        /* The scene kept is the seed's scene, with the images beside it. */
        assert_int_equal(run_shell("python3 tools/random-scene.py --track main --seed %d | cmp - '%s' && "
                                   "test -s '%s/kept/main-seed-%d.reference.ppm' && "
                                   "test -s '%s/kept/main-seed-%d.02-static.ppm'",
                                   seed, kept, dir, seed, dir, seed)
                             ->exit_code,
                         0);
    }
    assert_non_null(strstr(out, "again: tools/difftest.sh --seed-list 5 --stages 2"));
    assert_non_null(strstr(out, "difftest: 2 seeds x 3 stages: 4 exact, 0 allowed to differ, "
                                "0 skipped (limit), 2 failed\n"));
    /* A path-tracing stage's: the path-tracing scene, and the reference of its estimator. */
    r = difftest(dir, "FAKE_BAD_IMAGE=p01-base", "--seed-list 8");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "difftest: FAILED p01-base on seed 8: "));
    assert_int_equal(run_shell("test -s '%s/kept/pt-seed-8.scene' && test -s '%s/kept/pt-seed-8.reference-path.ppm'",
                               dir, dir)
                         ->exit_code,
                     0);
    /* A stage that fails to run fails too, with what it said. */
    r = difftest(dir, "FAKE_FAIL=01-base:1", "--seed-list 3");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "difftest: FAILED 01-base on seed 3: exit status 1: 01-base: error: fake failure"));
    remove_temporary_folder(dir);
}

/* A stage that changes the arithmetic on purpose (12a) is held to its manifest's
 * difftest-differing-percent, a share of the pixels over the whole run (its max-differing-percent
 * where it has none): within it, its differing scenes are counted apart; past it, it fails. */
static void a_stage_allowed_to_differ_is_held_to_its_share(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_stages(dir, "max-differing-percent: 0.03\ndifftest-differing-percent: 100\n");
    struct command_result *r = difftest(dir, "FAKE_BAD_IMAGE=02-static:main-seed-2", "--seeds 2");
    if (r->exit_code != 0)
        fail_msg("exit status %d: %s%s", r->exit_code, r->out, r->err);
    assert_non_null(strstr(r->out, "difftest: 02-static: 1 of 2 pixels differ over the run (50.0000%); its "
                                   "manifest allows 100% (difftest-differing-percent)\n"));
    assert_non_null(strstr(r->out, "difftest: 2 seeds x 3 stages: 5 exact, 1 allowed to differ, "
                                   "0 skipped (limit), 0 failed\n"));
    /* Allowed to differ is not shown exact: differing on every scene, within its share, it fails. */
    r = difftest(dir, "FAKE_BAD_IMAGE=02-static", "--seeds 2");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "difftest: FAILED 02-static over the run: no scene rendered exactly (0 of 2 over "
                                   "its sphere limit, 2 allowed to differ)\n"));
    assert_non_null(strstr(r->out, "difftest: 2 seeds x 3 stages: 4 exact, 2 allowed to differ, "
                                   "0 skipped (limit), 1 failed\n"));
    /* Without difftest-differing-percent the benchmark's 0.03% holds, and 100% is past it. */
    fake_stages(dir, "max-differing-percent: 0.03\n");
    r = difftest(dir, "FAKE_BAD_IMAGE=02-static", "--seeds 2");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "difftest: FAILED 02-static over the run: more pixels differ over the run "
                                   "than its manifest allows\n"));
    assert_non_null(strstr(r->out, "difftest: 2 seeds x 3 stages: 4 exact, 2 allowed to differ, "
                                   "0 skipped (limit), 1 failed\n"));
    /* A run that fails still fails. */
    r = difftest(dir, "FAKE_FAIL=02-static:1", "--seeds 1");
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->out, "difftest: FAILED 02-static on seed 1: exit status 1"));
    remove_temporary_folder(dir);
}

static void without_a_gpu_it_says_it_skipped(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    fake_stages(dir, NULL);
    struct command_result *r = run_shell("STAGES_DIR='%s/stages' RUN_NVIDIA_SMI=false tools/difftest.sh "
                                         "--bin-dir '%s/bin' --keep '%s/kept'",
                                         dir, dir, dir);
    assert_int_equal(r->exit_code, 77);
    assert_string_equal(r->out, "difftest: skipped: no NVIDIA GPU here (nvidia-smi lists none)\n");
    /* Bad options: one line, status 2. */
    const char *bad[] = {"--seeds 0", "--seed-list 9-3", "--stages 99", "--jobs many", "--keep", "--frobnicate"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        r = difftest(dir, "", bad[b]);
        assert_int_equal(r->exit_code, 2);
        assert_int_equal(strncmp(r->err, "difftest: ", 10), 0);
        assert_non_null(strchr(r->err, '\n'));
        assert_int_equal(strchr(r->err, '\n')[1], '\0');
    }
    remove_temporary_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_generator_is_deterministic),
        cmocka_unit_test(the_references_accept_every_scene),
        cmocka_unit_test(sizes_and_counts),
        cmocka_unit_test(the_scenes_reach_the_corners),
        cmocka_unit_test(each_description_is_true),
        cmocka_unit_test(every_stage_has_the_references_bits),
        cmocka_unit_test(the_seeds_that_found_a_margin_stay_exact),
        cmocka_unit_test(the_driver_counts_every_run),
        cmocka_unit_test(a_stage_with_no_exact_scene_fails),
        cmocka_unit_test(a_failing_seed_keeps_its_scene),
        cmocka_unit_test(a_stage_allowed_to_differ_is_held_to_its_share),
        cmocka_unit_test(without_a_gpu_it_says_it_skipped),
    };
    return cmocka_run_group_tests_name("the differential test", tests, setup, teardown);
}
