/* The path-tracing track's CPU reference and its arithmetic (SPEC-PATH-TRACING.md,
 * pt_math.h, pt_reservoirs.h): the committed golden images of scenes/pt-quick.scene, one per
 * estimator (tests/golden/pt-quick.png, pt-quick-nee.png, pt-quick-light-pool.png,
 * pt-quick-reservoirs.png, written by build/pt-reference --estimator NAME), the ray counts,
 * independence from the number of threads, the building blocks on hand-computed cases, and the
 * estimators of section 6 against each other (the same mean brightness, within a bound made from
 * their measured spread; reservoirs, biased, within a stated margin, and less noisy per frame).
 * Needs no GPU. Run from the repository root. */
#include "test_support.h"

#include <math.h>

#include "image/image.h"
#include "pathtrace/pt_reference.h"
#include "pathtrace/pt_reservoirs.h"
#include "pathtrace/pt_scene.h"

#define QUICK_SCENE "scenes/pt-quick.scene"
#define GOLDEN "tests/golden/pt-quick.png"
/* build/pt-reference --scene scenes/pt-quick.scene: 128x128 pixels, 8 samples, at most 8
 * segments. The count only changes when the arithmetic or the scene does (then the golden image
 * does too, and both are written anew). */
#define QUICK_RAYS 257567ULL
#define QUICK_SIDE 128
#define QUICK_SAMPLES 8

/* The golden image and ray count of each estimator (build/pt-reference --scene
 * scenes/pt-quick.scene --estimator NAME --output tests/golden/...). */
static const struct {
    int estimator;
    const char *golden;
    unsigned long long rays;
} quick[PT_ALL_ESTIMATORS] = {
    {PT_ESTIMATOR_PATH, GOLDEN, QUICK_RAYS},
    {PT_ESTIMATOR_NEE, "tests/golden/pt-quick-nee.png", 341833ULL},
    {PT_ESTIMATOR_LIGHT_POOL, "tests/golden/pt-quick-light-pool.png", 341647ULL},
    {PT_ESTIMATOR_RESERVOIRS, "tests/golden/pt-quick-reservoirs.png", 343193ULL},
};

static struct pt_scene load(const char *path)
{
    struct pt_scene scene;
    char error[512];
    int loaded = pt_scene_load(path, &scene, error, sizeof error);
    if (loaded)
        fail_msg("%s", error);
    return scene;
}

static struct image golden_image_of(const char *path)
{
    struct image golden;
    char error[IMAGE_ERROR_BYTES];
    int read = image_read(path, &golden, error, sizeof error);
    if (read)
        fail_msg("%s", error);
    assert_int_equal(golden.width, QUICK_SIDE);
    assert_int_equal(golden.height, QUICK_SIDE);
    return golden;
}

static struct image golden_image(void)
{
    return golden_image_of(GOLDEN);
}

static unsigned long long *render_sums_with(const struct pt_world *world, int estimator,
                                            int samples, int threads, unsigned long long *rays)
{
    size_t channels = (size_t)world->width * (size_t)world->height * 3;
    unsigned long long *sums = calloc(channels, sizeof *sums);
    assert_non_null(sums);
    *rays = pt_reference_render(world, estimator, samples, threads, sums);
    return sums;
}

static unsigned long long *render_sums(const struct pt_world *world, int samples, int threads,
                                       unsigned long long *rays)
{
    return render_sums_with(world, PT_ESTIMATOR_PATH, samples, threads, rays);
}

static struct image image_of_sums(const unsigned long long *sums, int width, int height,
                                  int samples)
{
    struct image image;
    assert_int_equal(image_alloc(&image, width, height), 0);
    for (size_t c = 0; c < (size_t)width * (size_t)height * 3; ++c)
        image.rgb[c] = pt_pixel_channel(sums[c], samples);
    return image;
}

/* ---- The whole render ----------------------------------------------------------------------- */

/* Each estimator's image of pt-quick is its golden image, with its ray count. */
static void quick_scene_is_the_golden_image_with_a_fixed_ray_count(void **state)
{
    (void)state;
    struct pt_scene scene = load(QUICK_SCENE);
    assert_int_equal(scene.width, QUICK_SIDE);
    assert_int_equal(scene.samples, QUICK_SAMPLES);
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e) {
        unsigned long long rays;
        unsigned long long *sums =
            render_sums_with(&world, quick[e].estimator, scene.samples, 0, &rays);
        print_message("# %s: %llu rays\n", pt_estimator_name(quick[e].estimator), rays);
        assert_true(rays == quick[e].rays);
        struct image image = image_of_sums(sums, scene.width, scene.height, scene.samples);
        struct image golden = golden_image_of(quick[e].golden);
        assert_int_equal(differing_pixels(NULL, &golden, &image), 0);
        /* Not a blank or saturated picture: the sky, the lamps and shadows are all there. */
        int dark = 0, white = 0;
        for (size_t c = 0; c < (size_t)QUICK_SIDE * QUICK_SIDE * 3; ++c) {
            dark += golden.rgb[c] < 32;
            white += golden.rgb[c] == 255;
        }
        assert_true(dark > 0 && white > 0);
        image_free(&golden);
        image_free(&image);
        free(sums);
    }
    pt_scene_free(&scene);
}

/* Integer sums are associative: one thread or three (rows handed out as they finish) make the
 * same sums to the last bit, and the same ray count. */
static void sums_do_not_depend_on_the_thread_count(void **state)
{
    (void)state;
    struct pt_scene scene = load(QUICK_SCENE);
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    size_t bytes = (size_t)scene.width * scene.height * 3 * sizeof(unsigned long long);
    unsigned long long rays_one, rays_three;
    unsigned long long *one = render_sums(&world, scene.samples, 1, &rays_one);
    unsigned long long *three = render_sums(&world, scene.samples, 3, &rays_three);
    assert_true(rays_one == QUICK_RAYS);
    assert_true(rays_three == QUICK_RAYS);
    assert_int_equal(memcmp(one, three, bytes), 0);
    unsigned long long total = 0;
    for (size_t c = 0; c < bytes / sizeof *one; ++c)
        total += one[c];
    assert_true(total > 0);
    free(one);
    free(three);
    pt_scene_free(&scene);
}

/* ---- Random numbers ---------------------------------------------------------------------------
 */

static void random_numbers_are_the_spec_hash_in_0_1(void **state)
{
    (void)state;
    /* lowbias32, computed independently (Python, 32-bit wrap-around). */
    assert_int_equal(pt_hash(0u), 0u);
    assert_int_equal(pt_hash(1u), 0x688990c0u);
    assert_int_equal(pt_hash(0xdeadbeefu), 0xe628c683u);
    /* u = (h >> 8) * 2^-24 with h = hash(hash(hash(p ^ 0x9e3779b9) ^ s) ^ (256 e + dim)). */
    assert_true(pt_random(0, 0, 0, 0) == 9719733.0f / 16777216.0f);
    assert_true(pt_random(1, 0, 0, 0) == 12159585.0f / 16777216.0f);
    assert_true(pt_random(0, 1, 0, 0) == 13007976.0f / 16777216.0f);
    assert_true(pt_random(0, 0, 1, 0) == 8452467.0f / 16777216.0f);
    assert_true(pt_random(0, 0, 0, 1) == 11730160.0f / 16777216.0f);
    assert_true(pt_random(12345, 7, 3, 2) == 3712563.0f / 16777216.0f);

    float lowest = 1.0f, highest = 0.0f;
    double total = 0;
    int count = 0;
    for (unsigned pixel = 0; pixel < 4096; pixel += 3)
        for (unsigned sample = 0; sample < 8; ++sample)
            for (unsigned dim = 0; dim < 4; ++dim) {
                float u = pt_random(pixel, sample, sample % 3, dim);
                assert_true(u >= 0.0f && u < 1.0f);
                /* exact multiples of 2^-24: the same float on the CPU and the GPU */
                assert_true(u * 16777216.0f == floorf(u * 16777216.0f));
                /* a function of its arguments alone */
                assert_true(pt_random(pixel, sample, sample % 3, dim) == u);
                lowest = u < lowest ? u : lowest;
                highest = u > highest ? u : highest;
                total += u;
                ++count;
            }
    print_message("# %d numbers in [%.6f, %.6f], mean %.4f\n", count, lowest, highest,
                  total / count);
    assert_true(lowest < 0.01f && highest > 0.99f);
    assert_true(fabs(total / count - 0.5) < 0.01);
}

/* ---- From samples to pixels ------------------------------------------------------------------ */

static void fixed_point_edge_cases(void **state)
{
    (void)state;
    assert_int_equal(pt_fixed(NAN), 0u);
    assert_int_equal(pt_fixed(-NAN), 0u);
    assert_int_equal(pt_fixed(-1.0f), 0u);
    assert_int_equal(pt_fixed(-INFINITY), 0u);
    assert_int_equal(pt_fixed(-0.0f), 0u);
    assert_int_equal(pt_fixed(0.0f), 0u);
    assert_int_equal(pt_fixed(1.0f / 131072.0f), 0u); /* half a step: truncated */
    assert_int_equal(pt_fixed(1.0f / 65536.0f), 1u);
    assert_int_equal(pt_fixed(0.5f), 32768u);
    assert_int_equal(pt_fixed(1.0f), 65536u);
    assert_int_equal(pt_fixed(3.25f), 212992u);
    /* just below the clamp: 63.999996185302734 * 65536 = 4194303.75, truncated */
    assert_int_equal(pt_fixed(nextafterf(64.0f, 0.0f)), 4194303u);
    assert_int_equal(pt_fixed(64.0f), 64u * 65536u);
    assert_int_equal(pt_fixed(1000.0f), 64u * 65536u);
    assert_int_equal(pt_fixed(3.0e38f), 64u * 65536u);
    assert_int_equal(pt_fixed(INFINITY), 64u * 65536u);
}

static void pixel_channel_edge_cases(void **state)
{
    (void)state;
    assert_int_equal(pt_pixel_channel(0, 1), 0);
    assert_int_equal(pt_pixel_channel(0, 8), 0);
    /* mean 1/65536: 255.999 * (1/256) = 0.99999..., truncated to 0; twice that is 1.41... */
    assert_int_equal(pt_pixel_channel(1, 1), 0);
    assert_int_equal(pt_pixel_channel(2, 1), 1);
    /* mean 1/4: 255.999 * 0.5 = 127.9995 */
    assert_int_equal(pt_pixel_channel(8ULL * 16384ULL, 8), 127);
    /* mean 1/2: 255.999 * 0.70710677 = 181.0... */
    assert_int_equal(pt_pixel_channel(32768ULL * 3ULL, 3), 181);
    /* mean 1 and above: clamped, 255.999 truncated to 255 */
    assert_int_equal(pt_pixel_channel(65536ULL * 8ULL, 8), 255);
    assert_int_equal(pt_pixel_channel(65536ULL * 8ULL - 1ULL, 8), 255);
    assert_int_equal(pt_pixel_channel(64ULL * 65536ULL * 65536ULL, 65536), 255);
    assert_int_equal(pt_pixel_channel(~0ULL, 1), 255);
    /* one sample at the clamp among 64 dark ones: mean exactly 1 */
    assert_int_equal(pt_pixel_channel(64ULL * 65536ULL, 64), 255);
    assert_int_equal(pt_pixel_channel(64ULL * 65536ULL, 256), 127); /* mean 1/4 */
}

/* ---- A ray against a sphere ------------------------------------------------------------------ */

static void sphere_hits_by_hand(void **state)
{
    (void)state;
    struct pt_sphere s = {{0.0f, 0.0f, -5.0f}, 1.0f};
    const struct spec_vec3 o = {0.0f, 0.0f, 0.0f};
    /* oc = (0,0,5), a = 1, h = -5, k = 24, disc = 1: t = (5 - 1) / 1 */
    assert_true(pt_sphere_hit(s, o, spec_v3(0, 0, -1)) == 4.0f);
    /* a direction of length 2: a = 4, h = -10, disc = 100 - 96 = 4, t = (10 - 2) / 4 */
    assert_true(pt_sphere_hit(s, o, spec_v3(0, 0, -2)) == 2.0f);
    /* from the centre: the near root -1 is behind, the far one 1 counts */
    assert_true(pt_sphere_hit(s, spec_v3(0, 0, -5), spec_v3(0, 0, -1)) == 1.0f);
    /* from the surface: the root 0 is not > 1e-4, the far side at 2 is the hit */
    assert_true(pt_sphere_hit(s, spec_v3(0, 0, -4), spec_v3(0, 0, -1)) == 2.0f);
    /* sideways (disc = -24) and away (both roots negative): nothing */
    assert_true(pt_sphere_hit(s, o, spec_v3(0, 1, 0)) == PT_T_FAR);
    assert_true(pt_sphere_hit(s, o, spec_v3(0, 0, 1)) == PT_T_FAR);
    /* grazing: centre (1,0,-5), disc = 25 - 25 = 0 exactly, still a hit at 5 */
    struct pt_sphere side = {{1.0f, 0.0f, -5.0f}, 1.0f};
    assert_true(pt_sphere_hit(side, o, spec_v3(0, 0, -1)) == 5.0f);
    /* a hair past grazing: centre (1.5,0,-5) misses */
    struct pt_sphere past = {{1.5f, 0.0f, -5.0f}, 1.0f};
    assert_true(pt_sphere_hit(past, o, spec_v3(0, 0, -1)) == PT_T_FAR);
}

/* ---- What a hit does ------------------------------------------------------------------------- */

static struct pt_material material(int kind, float r, float g, float b, float parameter)
{
    struct pt_material m;
    m.kind = kind;
    m.colour = spec_v3(r, g, b);
    m.parameter = parameter;
    return m;
}

static void light_ends_the_path_with_its_emission(void **state)
{
    (void)state;
    struct pt_sphere s = {{0.0f, 0.0f, -5.0f}, 1.0f};
    struct pt_scatter out;
    memset(&out, 0x5a, sizeof out);
    pt_scatter_hit(material(PT_LIGHT, 6, 6, 5, 0), s, spec_v3(0, 0, 0), spec_v3(0, 0, -1), 4.0f,
                   17, 3, 2, &out);
    assert_int_equal(out.event, PT_EMITTED);
    assert_true(vec3_is(out.emitted, 6, 6, 5));
}

/* Hit at (0,0,-4) coming along (1,-1,0) from (-1,1,-4), t = 1, on a sphere centred (0,-1,-4) of
 * radius 1: the normal is (0,1,0), the reflection (1,1,0) exactly (a mirror does not normalise),
 * the new ray starts 0.001 above the point. */
static void mirror_reflects_exactly(void **state)
{
    (void)state;
    struct pt_sphere s = {{0.0f, -1.0f, -4.0f}, 1.0f};
    struct pt_scatter out;
    pt_scatter_hit(material(PT_MIRROR, 0.8f, 0.8f, 1.0f, 0), s, spec_v3(-1, 1, -4),
                   spec_v3(1, -1, 0), 1.0f, 5, 0, 0, &out);
    assert_int_equal(out.event, PT_SCATTERED);
    assert_true(vec3_is(out.direction, 1, 1, 0));
    assert_true(vec3_is(out.origin, 0, 0.001f, -4));
    assert_true(vec3_is(out.attenuation, 0.8f, 0.8f, 1.0f));
    /* head-on: straight back, from 0.001 in front of (0,0,-4) */
    struct pt_sphere ahead = {{0.0f, 0.0f, -5.0f}, 1.0f};
    pt_scatter_hit(material(PT_MIRROR, 1, 1, 1, 0), ahead, spec_v3(0, 0, 0), spec_v3(0, 0, -1),
                   4.0f, 5, 0, 0, &out);
    assert_int_equal(out.event, PT_SCATTERED);
    assert_true(vec3_is(out.direction, 0, 0, 1));
    assert_true(vec3_is(out.origin, 0, 0, -4.0f + 0.001f));
}

/* Glass of index 1 bends nothing: r0 = 0, eta = 1, and refraction gives back the incoming unit
 * direction up to the rounding of T, of sqrt(|1 - T.T|) and of the normalisation: within 1e-6 in
 * each component (about 8 ulps of 1). Schlick's reflectance (1 - cos)^5 still reflects some
 * rays: those must be the exact reflection about the facing normal. Rays enter from outside
 * (the new ray starts inside, 0.001 below the surface) and leave from inside. */
static void glass_of_index_1_lets_rays_straight_through(void **state)
{
    (void)state;
    const float tolerance = 1e-6f;
    struct pt_sphere s = {{0.0f, 0.0f, 0.0f}, 1.0f};
    struct pt_material glass = material(PT_GLASS, 1, 0.9f, 0.8f, 1.0f);
    const struct spec_vec3 d = spec_v3(0, 0, -1);
    const float offsets[] = {0.0f, 0.3f, 0.6f, 0.8f, 0.9f}; /* x of the ray: the angle */
    int refracted = 0, reflected = 0;
    for (int inside = 0; inside < 2; ++inside)
        for (int k = 0; k < 5; ++k)
            for (unsigned pixel = 0; pixel < 200; ++pixel) {
                struct spec_vec3 o = spec_v3(offsets[k], 0.0f, inside ? 0.0f : 5.0f);
                float t = pt_sphere_hit(s, o, d);
                assert_true(t < PT_T_FAR);
                struct spec_vec3 p = spec_add(o, spec_scale(t, d));
                struct spec_vec3 n = spec_v3(p.x, p.y, p.z); /* (p - c) / 1 */
                int entering = spec_dot(d, n) < 0.0f;
                assert_int_equal(entering, !inside);
                struct spec_vec3 f = entering ? n : spec_scale(-1.0f, n);
                float cosine = -spec_dot(d, f);
                float x = 1.0f - (cosine < 1.0f ? cosine : 1.0f);
                float x2 = x * x;
                float reflectance = x2 * x2 * x; /* r0 = ((1 - 1) / (1 + 1))^2 = 0 */
                int segment = (int)(pixel % 3);
                int reflects = pt_random(pixel, 1, (unsigned)segment + 1, 0) < reflectance;
                struct pt_scatter out;
                pt_scatter_hit(glass, s, o, d, t, pixel, 1, segment, &out);
                assert_int_equal(out.event, PT_SCATTERED);
                assert_true(vec3_is(out.attenuation, 1, 0.9f, 0.8f));
                if (reflects) {
                    struct spec_vec3 r = spec_sub(d, spec_scale(2.0f * spec_dot(d, f), f));
                    assert_true(vec3_is(out.direction, r.x, r.y, r.z));
                    ++reflected;
                } else {
                    if (fabsf(out.direction.x - d.x) > tolerance ||
                        fabsf(out.direction.y - d.y) > tolerance ||
                        fabsf(out.direction.z - d.z) > tolerance)
                        fail_msg("x %g, %s: direction (%.9g, %.9g, %.9g)", offsets[k],
                                 inside ? "leaving" : "entering", out.direction.x,
                                 out.direction.y, out.direction.z);
                    /* it goes on on the far side of the surface, inward when entering */
                    float side = spec_dot(out.direction, n) > 0.0f ? 1e-3f : -1e-3f;
                    assert_true(side == (entering ? -1e-3f : 1e-3f));
                    struct spec_vec3 start = spec_add(p, spec_scale(side, n));
                    assert_true(vec3_is(out.origin, start.x, start.y, start.z));
                    ++refracted;
                }
            }
    print_message("# %d refracted, %d reflected\n", refracted, reflected);
    assert_true(refracted > 1000 && reflected > 0);
}

/* Diffuse: N + a point of the unit ball, normalised: unit length within 1e-6, on the normal's
 * side, starting 0.001 outside, attenuated by the colour, and not always the same direction. */
static void diffuse_directions_are_unit_and_outward(void **state)
{
    (void)state;
    struct pt_sphere s = {{0.0f, 0.0f, -5.0f}, 1.0f};
    struct pt_material grey = material(PT_DIFFUSE, 0.5f, 0.25f, 1.0f, 0);
    const struct spec_vec3 o = spec_v3(0, 0, 0);
    const struct spec_vec3 directions[] = {{0, 0, -1}, {0.1f, 0, -1}, {-0.1f, 0.15f, -1},
                                           {0, -0.19f, -1}};
    int count = 0, distinct = 0;
    float previous_x = 2.0f;
    for (int k = 0; k < 4; ++k) {
        float t = pt_sphere_hit(s, o, directions[k]);
        assert_true(t < PT_T_FAR);
        struct spec_vec3 p = spec_add(o, spec_scale(t, directions[k]));
        struct spec_vec3 outward = spec_sub(p, s.centre);
        struct spec_vec3 n = spec_v3(outward.x / s.radius, outward.y / s.radius, outward.z / s.radius);
        for (unsigned pixel = 0; pixel < 500; ++pixel)
            for (unsigned sample = 0; sample < 4; ++sample) {
                struct pt_scatter out;
                pt_scatter_hit(grey, s, o, directions[k], t, pixel, sample, (int)(pixel % 8),
                               &out);
                assert_int_equal(out.event, PT_SCATTERED);
                assert_true(vec3_is(out.attenuation, 0.5f, 0.25f, 1.0f));
                double length = sqrt((double)out.direction.x * out.direction.x +
                                     (double)out.direction.y * out.direction.y +
                                     (double)out.direction.z * out.direction.z);
                if (fabs(length - 1.0) > 1e-6)
                    fail_msg("pixel %u sample %u: length %.9g", pixel, sample, length);
                assert_true(spec_dot(out.direction, n) > 0.0f);
                struct spec_vec3 start = spec_add(p, spec_scale(1e-3f, n));
                assert_true(vec3_is(out.origin, start.x, start.y, start.z));
                distinct += out.direction.x != previous_x;
                previous_x = out.direction.x;
                ++count;
            }
    }
    assert_true(distinct > count * 9 / 10);
}

/* ---- Whole paths in tiny worlds -------------------------------------------------------------- */

static struct pt_world tiny_world(const struct pt_sphere *sphere, const struct pt_material *m,
                                  int max_depth)
{
    struct pt_world w = {0}; /* no hierarchy: every sphere in file order */
    w.spheres = sphere;
    w.materials = m;
    w.sphere_count = 1;
    w.lights = NULL;
    w.light_count = 0;
    w.camera = spec_v3(0, 0, 1);
    w.sky = spec_v3(0.25f, 0.5f, 2.0f);
    w.width = 8;
    w.height = 6;
    w.max_depth = max_depth;
    return w;
}

static void paths_in_tiny_worlds(void **state)
{
    (void)state;
    /* A lamp filling the view: one ray, its emission. */
    struct pt_sphere big = {{0.0f, 0.0f, -200.0f}, 190.0f};
    struct pt_material lamp = material(PT_LIGHT, 3, 2, 1, 0);
    struct pt_world w = tiny_world(&big, &lamp, 8);
    /* Behind the camera: every ray escapes to the sky. */
    struct pt_sphere behind = {{0.0f, 0.0f, 50.0f}, 1.0f};
    struct pt_world sky = tiny_world(&behind, &lamp, 8);
    /* A grey wall filling the view with max_depth 1: the path is cut, it brings nothing. */
    struct pt_material grey = material(PT_DIFFUSE, 0.5f, 0.5f, 0.5f, 0);
    struct pt_world cut = tiny_world(&big, &grey, 1);
    for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 8; ++i)
            for (unsigned sample = 0; sample < 3; ++sample) {
                int rays = -1;
                struct spec_vec3 c = pt_trace_sample(&w, i, j, sample, &rays);
                assert_int_equal(rays, 1);
                assert_true(vec3_is(c, 3, 2, 1));
                c = pt_trace_sample(&sky, i, j, sample, &rays);
                assert_int_equal(rays, 1);
                assert_true(vec3_is(c, 0.25f, 0.5f, 2.0f));
                c = pt_trace_sample(&cut, i, j, sample, &rays);
                assert_int_equal(rays, 1);
                assert_true(vec3_is(c, 0, 0, 0));
            }
    /* The reference's count over the 8x6 lamp world, 3 samples: one ray a sample. */
    unsigned long long sums[8 * 6 * 3] = {0};
    assert_true(pt_reference_render(&w, PT_ESTIMATOR_PATH, 3, 2, sums) == 8ULL * 6ULL * 3ULL);
    assert_true(sums[0] == 3ULL * 3ULL * 65536ULL && sums[1] == 3ULL * 2ULL * 65536ULL);
}

/* ---- Next-event estimation (SPEC.md section 6) --------------------------------------------- */

static struct pt_scene parse(const char *text)
{
    struct pt_scene scene;
    char error[512];
    int parsed = pt_scene_parse(text, strlen(text), "test", &scene, error, sizeof error);
    if (parsed)
        fail_msg("%s", error);
    return scene;
}

/* One diffuse sphere on a diffuse ground, two lamps above the view (no camera ray meets one:
 * the camera sees 26.6 degrees up, the lamps start at 30), no sky: every bit of light is lamp
 * light, reached by bouncing into a lamp (path) or by a shadow ray (nee, light-pool). */
#define LAMPS_SCENE(max_depth)                                                                    \
    "size 32 24\ncamera 0 0 1\nsky 0 0 0\nsamples 1\nmax_depth " max_depth "\n"                   \
    "sphere 1000 0 -1001 -3 diffuse 0.5 0.5 0.5\n"                                                \
    "sphere 0.5 0 -0.5 -3 diffuse 0.8 0.6 0.4\n"                                                  \
    "sphere 0.6 -1.6 2.6 -2 light 2 2 2\n"                                                        \
    "sphere 0.5 1.4 2.6 -2.5 light 1.5 1 3\n"

static int same_bits(struct spec_vec3 a, struct spec_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The scene lists its lights once, in file order, with their spheres' places and emissions. */
static void scenes_list_their_lights(void **state)
{
    (void)state;
    struct pt_scene scene = load(QUICK_SCENE);
    assert_int_equal(scene.light_count, 2);
    assert_int_equal(scene.lights[0].sphere, 19);
    assert_int_equal(scene.lights[1].sphere, 20);
    assert_true(vec3_is(scene.lights[0].centre, -0.8f, 1.6f, -3.5f));
    assert_true(scene.lights[0].radius == 0.3f);
    assert_true(vec3_is(scene.lights[1].emission, 5, 5, 6));
    struct pt_world world = pt_scene_world(&scene, 8, 8);
    assert_true(world.lights == scene.lights && world.light_count == 2);
    pt_scene_free(&scene);
    assert_null(scene.lights);
    assert_int_equal(scene.light_count, 0);

    scene = load("scenes/pt-many-lights.scene");
    assert_int_equal(scene.sphere_count, 275);
    assert_int_equal(scene.light_count, 256);
    for (int l = 0; l < scene.light_count; ++l) {
        int s = scene.lights[l].sphere;
        assert_int_equal(s, 19 + l);
        assert_int_equal(scene.materials[s].kind, PT_LIGHT);
        assert_true(same_bits(scene.lights[l].emission, scene.materials[s].colour));
    }
    pt_scene_free(&scene);

    scene = parse("size 4 4\ncamera 0 0 1\nsky 1 1 1\nsamples 1\nmax_depth 2\n"
                  "sphere 1 0 0 -3 diffuse 0.5 0.5 0.5\n");
    assert_int_equal(scene.light_count, 0);
    assert_null(scene.lights);
    pt_scene_free(&scene);
}

/* A light sample by hand, and drawn ones: on their sphere, facing out, lights picked evenly;
 * a sample kept as (light, normal) and rebuilt is the drawn one, bit for bit (stage p08d). */
static void light_samples_by_hand_and_drawn(void **state)
{
    (void)state;
    assert_true(PT_PI == 3.14159265f);
    assert_true(2.0f / PT_PI == 0.636619746685028076171875f);
    struct pt_light light = {{1.0f, 2.0f, 3.0f}, 0.5f, {4.0f, 5.0f, 6.0f}, 7};
    struct pt_light_sample s = pt_light_sample_at(light, 2, spec_v3(0, 1, 0), 3);
    assert_int_equal(s.light, 2);
    assert_int_equal(s.sphere, 7);
    assert_true(vec3_is(s.point, 1.0f, 2.5f, 3.0f));
    assert_true(vec3_is(s.normal, 0, 1, 0));
    assert_true(vec3_is(s.emission, 4, 5, 6));
    assert_true(s.inverse_pdf == 3.0f * (4.0f * PT_PI * 0.25f));

    struct pt_scene scene = load("scenes/pt-many-lights.scene");
    int picked[256] = {0};
    const int draws = 256 * 200;
    for (int k = 0; k < draws; ++k) {
        unsigned pixel = (unsigned)k % 977u, sample = (unsigned)k / 977u, event = 300u;
        int l = pt_light_pick(pixel, sample, event, scene.light_count);
        assert_true(l >= 0 && l < scene.light_count);
        ++picked[l];
        struct pt_light_sample drawn = pt_light_sample_draw(scene.lights[l], l, pixel, sample,
                                                            event, scene.light_count);
        assert_int_equal(drawn.light, l); /* 16 rejection misses in a row: about 1e-9 */
        struct spec_vec3 out = spec_sub(drawn.point, scene.lights[l].centre);
        double radius = sqrt((double)spec_dot(out, out));
        assert_true(fabs(radius - scene.lights[l].radius) < 1e-6);
        assert_true(fabs(sqrt((double)spec_dot(drawn.normal, drawn.normal)) - 1.0) < 1e-6);
        assert_true(spec_dot(out, drawn.normal) > 0.0f);
        struct spec_vec3 normal;
        assert_int_equal(pt_light_normal(pixel, sample, event, &normal), 1);
        struct pt_light_sample rebuilt =
            pt_light_sample_at(scene.lights[l], l, normal, scene.light_count);
        assert_int_equal(memcmp(&rebuilt, &drawn, sizeof drawn), 0);
    }
    for (int l = 0; l < 256; ++l)
        if (picked[l] < 140 || picked[l] > 260) /* 200 expected, sd 14 */
            fail_msg("light %d picked %d times in %d draws", l, picked[l], draws);
    pt_scene_free(&scene);
}

/* The reservoir and the contribution by hand: a lamp straight above a white surface, 2 away. */
static void reservoir_by_hand(void **state)
{
    (void)state;
    struct pt_shading_point at = {{0, 0, 0}, {0, 1, 0}, {1, 0.5f, 0.25f}};
    struct pt_light_sample above = {0, 9, {0, 2, 0}, {0, -1, 0}, {2, 2, 2}, 4.0f};
    struct pt_reservoir r;
    pt_reservoir_start(&r);
    /* w = (0, 2, 0), d2 = 4, cos_x = cos_y = 1, G = 1/4, c = (2, 1, 0.5), p^ = 3.5 / 4,
     * weight 3.5: kept whatever its number. */
    pt_reservoir_add(&r, at, above, 0.999f);
    assert_int_equal(r.sphere, 9);
    assert_true(r.geometry == 0.25f && r.target == 0.875f && r.weight_sum == 3.5f);
    assert_true(vec3_is(r.colour, 2, 1, 0.5f));
    /* Facing away from the point, behind the surface, or no sample: nothing changes. */
    struct pt_light_sample away = above, behind = above, none = pt_light_sample_none();
    away.normal = spec_v3(0, 1, 0);
    behind.point = spec_v3(0, -2, 0);
    behind.sphere = away.sphere = none.sphere = 5;
    pt_reservoir_add(&r, at, away, 0.0f);
    pt_reservoir_add(&r, at, behind, 0.0f);
    pt_reservoir_add(&r, at, none, 0.0f);
    assert_int_equal(r.sphere, 9);
    assert_true(r.weight_sum == 3.5f);
    /* A second, equal one: kept when u * 7 < 3.5. */
    struct pt_light_sample twin = above;
    twin.sphere = 8;
    struct pt_reservoir keeps = r, leaves = r;
    pt_reservoir_add(&keeps, at, twin, 0.49f);
    pt_reservoir_add(&leaves, at, twin, 0.5f);
    assert_int_equal(keeps.sphere, 8);
    assert_int_equal(leaves.sphere, 9);
    assert_true(keeps.weight_sum == 7.0f && leaves.weight_sum == 7.0f);
    /* The shadow ray starts 0.001 above the point and reaches the lamp's point at t = 1. */
    struct spec_vec3 origin, direction;
    pt_shadow_ray(at, &leaves, &origin, &direction);
    assert_true(vec3_is(origin, 0, 0.001f, 0));
    assert_true(vec3_is(direction, 0, 2.0f - 0.001f, 0));
    /* (((2 / pi) * G) * wsum) / (8 * p^), times the colour, times the throughput. */
    float scale = (2.0f / PT_PI) * 0.25f * 7.0f / (8.0f * 0.875f);
    struct spec_vec3 brought = pt_nee_contribution(&leaves, spec_v3(1, 0.5f, 2));
    assert_true(vec3_is(brought, 1 * (scale * 2), 0.5f * (scale * 1), 2 * (scale * 0.5f)));
}

/* The image's mean brightness (the mean of the three channels, as the sums hold them, in
 * units of 1) over `frames` frames of world with estimator; *error is its standard error,
 * from the spread of the frame means: frames are independent of each other, while the pixels
 * of one frame are not (light-pool's share a pool). */
static double mean_brightness(const struct pt_world *world, int estimator, int frames,
                              double *error, unsigned long long *rays)
{
    double pixels = (double)world->width * world->height, sum = 0, squares = 0;
    *rays = 0;
    for (int s = 0; s < frames; ++s) {
        double frame = 0;
        for (int j = 0; j < world->height; ++j)
            for (int i = 0; i < world->width; ++i) {
                int path_rays;
                struct spec_vec3 c =
                    pt_trace_sample_with(world, estimator, i, j, (unsigned)s, &path_rays);
                frame += ((double)pt_fixed(c.x) + pt_fixed(c.y) + pt_fixed(c.z)) / 3.0;
                *rays += (unsigned long long)path_rays;
            }
        frame /= pixels * PT_FIXED_ONE;
        sum += frame;
        squares += frame * frame;
    }
    double mean = sum / frames;
    double variance = (squares / frames - mean * mean) * frames / (frames - 1.0);
    *error = sqrt(variance / frames);
    return mean;
}

/* The three estimators render the same picture on average: path and nee, nee and light-pool
 * agree in mean brightness within 4 standard errors of their difference. The random numbers
 * are counter-based, so this test is deterministic: it cannot fail by chance once it passes.
 * Measured at 1024 frames, 32x24, max_depth 3: path 0.01810 +- 0.00014, nee 0.01827 +-
 * 0.00002, light-pool 0.01829 +- 0.00006 (the difference path - nee is 1.1 standard errors).
 * Mistakes this catches, each tried once by breaking pt_math.h: 1/pi for 2/pi (nee 0.00913,
 * 62 standard errors off), cos^2 for cos^3 (0.02071, 18), the throughput after the albedo
 * (0.00923), a lamp hit after a diffuse bounce counted too (0.03637, 88), a reservoir that
 * keeps by a coin toss (0.01651, 11). nee is also less noisy than path, per frame; light-pool
 * in between (its pixels share their candidates). */
static void estimators_agree_on_the_mean_brightness(void **state)
{
    (void)state;
    const int frames = 1024;
    struct pt_scene scene = parse(LAMPS_SCENE("3"));
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    double mean[PT_ESTIMATORS], error[PT_ESTIMATORS];
    unsigned long long rays[PT_ESTIMATORS];
    for (int e = 0; e < PT_ESTIMATORS; ++e) {
        mean[e] = mean_brightness(&world, e, frames, &error[e], &rays[e]);
        print_message("# %-10s mean brightness %.6f +- %.6f, %llu rays\n", pt_estimator_name(e),
                      mean[e], error[e], rays[e]);
    }
    const int path = PT_ESTIMATOR_PATH, nee = PT_ESTIMATOR_NEE, pool = PT_ESTIMATOR_LIGHT_POOL;
    double bound = 4.0 * sqrt(error[path] * error[path] + error[nee] * error[nee]);
    if (!(fabs(mean[path] - mean[nee]) <= bound))
        fail_msg("path %.6f and nee %.6f differ by more than %.6f", mean[path], mean[nee], bound);
    bound = 4.0 * sqrt(error[nee] * error[nee] + error[pool] * error[pool]);
    if (!(fabs(mean[nee] - mean[pool]) <= bound))
        fail_msg("nee %.6f and light-pool %.6f differ by more than %.6f", mean[nee], mean[pool],
                 bound);
    assert_true(mean[path] > 0.01); /* lit: the lamps do reach the spheres */
    assert_true(error[nee] < error[pool] && error[pool] < error[path]);
    assert_true(rays[nee] > rays[path] && rays[pool] > rays[path]);
    pt_scene_free(&scene);
}

/* The estimators trace the same paths: per sample, nee and light-pool trace the path
 * estimator's rays plus shadow rays, at most one per segment but the last. At max_depth 1 (the
 * camera ray is the last segment: no shadow ray) and in a scene without lights they are the
 * path estimator to the bit. */
static void next_event_adds_only_shadow_rays(void **state)
{
    (void)state;
    struct pt_scene deep = parse(LAMPS_SCENE("3"));
    struct pt_scene shallow = parse(LAMPS_SCENE("1"));
    struct pt_scene unlit = parse("size 32 24\ncamera 0 0 1\nsky 0.5 0.6 0.7\nsamples 1\n"
                                  "max_depth 5\nsphere 1000 0 -1001 -3 diffuse 0.5 0.5 0.5\n"
                                  "sphere 0.5 0 -0.5 -3 diffuse 0.8 0.6 0.4\n"
                                  "sphere 0.4 1 -0.6 -2.5 mirror 0.9 0.9 0.9\n");
    const struct pt_world worlds[3] = {pt_scene_world(&deep, deep.width, deep.height),
                                       pt_scene_world(&shallow, shallow.width, shallow.height),
                                       pt_scene_world(&unlit, unlit.width, unlit.height)};
    unsigned long long shadow_rays[PT_ESTIMATORS] = {0};
    int lit = 0;
    for (int w = 0; w < 3; ++w)
        for (int j = 0; j < deep.height; ++j)
            for (int i = 0; i < deep.width; ++i)
                for (unsigned s = 0; s < 8; ++s) {
                    int path_rays;
                    struct spec_vec3 path = pt_trace_sample(&worlds[w], i, j, s, &path_rays);
                    for (int e = PT_ESTIMATOR_NEE; e < PT_ESTIMATORS; ++e) {
                        int rays;
                        struct spec_vec3 c = pt_trace_sample_with(&worlds[w], e, i, j, s, &rays);
                        if (w == 0) {
                            assert_true(rays >= path_rays && rays - path_rays <= 2);
                            shadow_rays[e] += (unsigned long long)(rays - path_rays);
                            lit += c.x > 0.0f;
                        } else {
                            assert_true(same_bits(c, path) && rays == path_rays);
                        }
                    }
                    if (w == 1) /* the lamps are out of the camera's view */
                        assert_true(vec3_is(path, 0, 0, 0));
                }
    print_message("# shadow rays: nee %llu, light-pool %llu\n", shadow_rays[PT_ESTIMATOR_NEE],
                  shadow_rays[PT_ESTIMATOR_LIGHT_POOL]);
    assert_true(lit > 0);
    assert_true(shadow_rays[PT_ESTIMATOR_NEE] > 0 && shadow_rays[PT_ESTIMATOR_LIGHT_POOL] > 0);
    pt_scene_free(&deep);
    pt_scene_free(&shallow);
    pt_scene_free(&unlit);
}

/* light-pool is nee with its candidates taken from the tile's pool: every candidate of every
 * pixel of a tile, at every bounce of a frame, is one of the pool's 128 samples (drawn with the
 * pool's keys), so a tile of 128 pixels meets at most 128 different samples in a frame where
 * nee meets thousands; the next frame has a pool of its own. */
static void light_pool_candidates_come_from_their_tile_pool(void **state)
{
    (void)state;
    struct pt_scene scene = load("scenes/pt-many-lights.scene");
    struct pt_world world = pt_scene_world(&scene, 1024, 1024);
    const unsigned tile = 4321, frame = 1;
    struct pt_light_sample pool[PT_LIGHT_POOL_SIZE];
    for (int j = 0; j < PT_LIGHT_POOL_SIZE; ++j) {
        unsigned key_pixel = 0x80000000u | tile, key_event = 1024u + (unsigned)j;
        int l = pt_light_pick(key_pixel, frame, key_event, world.light_count);
        pool[j] = pt_light_sample_draw(world.lights[l], l, key_pixel, frame, key_event,
                                       world.light_count);
    }
    static struct pt_light_sample seen[PT_ESTIMATORS][PT_LIGHT_POOL_SIZE * 3 * PT_NEE_CANDIDATES];
    int distinct[PT_ESTIMATORS] = {0}, other_frame_same = 0;
    for (unsigned p = tile * PT_LIGHT_POOL_SIZE; p < (tile + 1) * PT_LIGHT_POOL_SIZE; ++p)
        for (unsigned event = 1; event <= 3; ++event)
            for (int c = 0; c < PT_NEE_CANDIDATES; ++c) {
                int entry = pt_pool_entry(p, frame, event, c);
                struct pt_light_sample pooled =
                    pt_candidate(&world, PT_ESTIMATOR_LIGHT_POOL, p, frame, event, c);
                assert_int_equal(memcmp(&pooled, &pool[entry], sizeof pooled), 0);
                struct pt_light_sample next =
                    pt_candidate(&world, PT_ESTIMATOR_LIGHT_POOL, p, frame + 1, event, c);
                other_frame_same += memcmp(&next, &pooled, sizeof next) == 0;
                for (int e = PT_ESTIMATOR_NEE; e < PT_ESTIMATORS; ++e) {
                    struct pt_light_sample s =
                        e == PT_ESTIMATOR_NEE ? pt_candidate(&world, e, p, frame, event, c)
                                              : pooled;
                    int k = 0;
                    while (k < distinct[e] && memcmp(&seen[e][k], &s, sizeof s) != 0)
                        ++k;
                    if (k == distinct[e])
                        seen[e][distinct[e]++] = s;
                }
            }
    print_message("# one tile, one frame, 3 bounces: %d different candidates with nee, %d with "
                  "light-pool\n",
                  distinct[PT_ESTIMATOR_NEE], distinct[PT_ESTIMATOR_LIGHT_POOL]);
    assert_true(distinct[PT_ESTIMATOR_LIGHT_POOL] <= PT_LIGHT_POOL_SIZE);
    assert_true(distinct[PT_ESTIMATOR_LIGHT_POOL] > PT_LIGHT_POOL_SIZE * 3 / 4);
    assert_true(distinct[PT_ESTIMATOR_NEE] > 3000);
    assert_true(other_frame_same < 10);
    pt_scene_free(&scene);
}

/* ---- Reservoirs (SPEC.md section 6, "reservoirs"; pt_reservoirs.h) ----------------------- */

/* The unlit scene of next_event_adds_only_shadow_rays: a sky, no lamp. */
#define UNLIT_SCENE                                                                              \
    "size 32 24\ncamera 0 0 1\nsky 0.5 0.6 0.7\nsamples 1\nmax_depth 5\n"                         \
    "sphere 1000 0 -1001 -3 diffuse 0.5 0.5 0.5\n"                                                \
    "sphere 0.5 0 -0.5 -3 diffuse 0.8 0.6 0.4\n"                                                  \
    "sphere 0.4 1 -0.6 -2.5 mirror 0.9 0.9 0.9\n"

/* Whether two renders of world (estimator a with threads_a, b with threads_b) give the same
 * sums to the bit and the same ray count. */
static int same_render(const struct pt_world *world, int a, int threads_a, int b, int threads_b,
                       int samples)
{
    size_t bytes = (size_t)world->width * world->height * 3 * sizeof(unsigned long long);
    unsigned long long rays_a, rays_b;
    unsigned long long *sums_a = render_sums_with(world, a, samples, threads_a, &rays_a);
    unsigned long long *sums_b = render_sums_with(world, b, samples, threads_b, &rays_b);
    int same = rays_a == rays_b && memcmp(sums_a, sums_b, bytes) == 0;
    free(sums_a);
    free(sums_b);
    return same;
}

/* Without lights every estimator is the path estimator to the bit, reservoirs too, at sizes
 * down to 2x2 (every neighbour off the image); with paths of one segment (no shadow ray at the
 * camera hit, so no reservoir) it is nee, which is the path estimator there. */
static void reservoirs_without_lights_or_reuse_are_the_path_estimator(void **state)
{
    (void)state;
    struct pt_scene unlit = parse(UNLIT_SCENE);
    struct pt_scene shallow = parse(LAMPS_SCENE("1"));
    const int sizes[][2] = {{2, 2}, {3, 5}, {7, 3}, {32, 24}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        struct pt_world w = pt_scene_world(&unlit, sizes[k][0], sizes[k][1]);
        assert_true(same_render(&w, PT_ESTIMATOR_RESERVOIRS, 2, PT_ESTIMATOR_PATH, 1, 3));
        w = pt_scene_world(&shallow, sizes[k][0], sizes[k][1]);
        assert_true(same_render(&w, PT_ESTIMATOR_RESERVOIRS, 2, PT_ESTIMATOR_NEE, 1, 3));
        assert_true(same_render(&w, PT_ESTIMATOR_RESERVOIRS, 2, PT_ESTIMATOR_PATH, 1, 3));
    }
    assert_true(pt_reference_pixel_bytes(PT_ESTIMATOR_RESERVOIRS) == 136);
    assert_true(pt_reference_pixel_bytes(PT_ESTIMATOR_NEE) == 0);
    pt_scene_free(&unlit);
    pt_scene_free(&shallow);
}

/* SPEC.md's four passes as the spec writes them, apart from the reference's code: each pass
 * over every pixel before the next starts, pixels in reverse order, the buffers as arrays of
 * records (the reference keeps structures of arrays and fuses passes 1 with 2 and 3 with 4),
 * and the spatial pass's neighbour rules written out here again. Returns the rays. */
static unsigned long long reservoirs_pass_by_pass(const struct pt_world *w, int samples,
                                                  unsigned long long *sums)
{
    int width = w->width, height = w->height;
    size_t pixels = (size_t)width * height;
    struct pt_primary_hit *hits[2] = {calloc(pixels, sizeof **hits),
                                      calloc(pixels, sizeof **hits)};
    struct pt_restir_reservoir *initial = calloc(pixels, sizeof *initial);
    struct pt_restir_reservoir *temporal = calloc(pixels, sizeof *temporal);
    struct pt_restir_reservoir *final = calloc(pixels, sizeof *final);
    assert_true(hits[0] && hits[1] && initial && temporal && final);
    for (size_t p = 0; p < pixels; ++p)
        final[p] = pt_restir_empty();
    unsigned long long rays = 0;
    for (unsigned s = 0; s < (unsigned)samples; ++s) {
        struct pt_primary_hit *now = hits[s % 2], *before = hits[(s + 1) % 2];
        for (size_t p = pixels; p-- > 0;)
            initial[p] = pt_restir_primary(w, (int)(p % width), (int)(p / width), s, &now[p]);
        for (size_t p = pixels; p-- > 0;)
            temporal[p] = pt_restir_temporal(w, now[p], initial[p], before[p], final[p],
                                             (unsigned)p, s);
        for (size_t p = pixels; p-- > 0;) {
            int i = (int)(p % width), j = (int)(p / width);
            struct pt_restir_reservoir r = temporal[p];
            for (int k = 0; k < 3 && r.count > 0; ++k) {
                int x = i + pt_restir_offset((unsigned)p, s, 2u * k);
                int y = j + pt_restir_offset((unsigned)p, s, 2u * k + 1u);
                if (x < 0 || y < 0 || x >= width || y >= height || (x == i && y == j))
                    continue;
                size_t q = (size_t)y * width + x;
                if (temporal[q].count == 0 || !pt_restir_similar(now[p], now[q]))
                    continue;
                pt_restir_merge(&r, now[p].at, temporal[q], pt_restir_sample(w, temporal[q]),
                                temporal[q].count, pt_random((unsigned)p, s, 1281u, 8u + k));
            }
            final[p] = r;
        }
        for (size_t p = pixels; p-- > 0;) {
            int path_rays;
            struct spec_vec3 c = pt_restir_trace_sample(w, (int)(p % width), (int)(p / width), s,
                                                        final[p], &path_rays);
            sums[p * 3] += pt_fixed(c.x);
            sums[p * 3 + 1] += pt_fixed(c.y);
            sums[p * 3 + 2] += pt_fixed(c.z);
            rays += (unsigned long long)path_rays;
        }
    }
    free(hits[0]);
    free(hits[1]);
    free(initial);
    free(temporal);
    free(final);
    return rays;
}

/* A pixel's samples do not depend on the order pixels are processed in, nor on the threads, nor
 * on the run: the reference with 1, 2 or 3 threads, twice, and the passes one by one in reverse
 * order make the same sums and rays, at sizes where most neighbours fall off the image too. */
static void reservoirs_do_not_depend_on_order_threads_or_runs(void **state)
{
    (void)state;
    struct pt_scene quick = load(QUICK_SCENE);
    struct pt_scene lamps = parse(LAMPS_SCENE("3"));
    const struct {
        const struct pt_scene *scene;
        int width, height, samples;
    } cases[] = {{&quick, 48, 36, 6}, {&lamps, 2, 2, 5}, {&lamps, 3, 5, 5}, {&lamps, 7, 3, 5},
                 {&lamps, 33, 17, 5}};
    int merged = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        struct pt_world w = pt_scene_world(cases[k].scene, cases[k].width, cases[k].height);
        size_t channels = (size_t)w.width * w.height * 3;
        unsigned long long rays_one;
        unsigned long long *one =
            render_sums_with(&w, PT_ESTIMATOR_RESERVOIRS, cases[k].samples, 1, &rays_one);
        for (int threads = 1; threads <= 3; ++threads) {
            unsigned long long rays;
            unsigned long long *again =
                render_sums_with(&w, PT_ESTIMATOR_RESERVOIRS, cases[k].samples, threads, &rays);
            assert_true(rays == rays_one);
            assert_int_equal(memcmp(one, again, channels * sizeof *one), 0);
            free(again);
        }
        unsigned long long *passes = calloc(channels, sizeof *passes);
        assert_non_null(passes);
        assert_true(reservoirs_pass_by_pass(&w, cases[k].samples, passes) == rays_one);
        assert_int_equal(memcmp(one, passes, channels * sizeof *one), 0);
        /* ... and differ from nee's where reuse had something to merge */
        unsigned long long rays_nee;
        unsigned long long *nee =
            render_sums_with(&w, PT_ESTIMATOR_NEE, cases[k].samples, 1, &rays_nee);
        merged += memcmp(one, nee, channels * sizeof *one) != 0;
        free(nee);
        free(passes);
        free(one);
    }
    assert_true(merged >= 2); /* pt-quick at 48x36 and the lamps at 33x17 at least */
    pt_scene_free(&quick);
    pt_scene_free(&lamps);
}

/* A lamp of radius 1 centred 3 above a surface point with normal (0, 1, 0) and albedo
 * (1, 0.5, 0.25): its sample with normal (0, -1, 0) is at (0, 2, 0), straight above, 2 away:
 * cos_x = cos_y = 1, G = 1/4. */
static struct pt_light lamp_above(float emission, int sphere)
{
    struct pt_light l = {{0.0f, 3.0f, 0.0f}, 1.0f, {emission, emission, emission}, sphere};
    return l;
}

static struct pt_restir_reservoir reservoir_of(int light, float weight_sum, float target,
                                               int count)
{
    struct pt_restir_reservoir r = pt_restir_empty();
    r.light = light;
    r.normal = spec_v3(0.0f, -1.0f, 0.0f);
    r.weight_sum = weight_sum;
    r.target = target;
    r.count = count;
    return r;
}

/* The reservoir arithmetic by hand: the target, an initial candidate as nee's reservoir takes
 * it, a merge (weight p^ W M, kept when u wsum < weight, M summed), the temporal cap and the
 * rules that skip a previous reservoir, a merge whose sample the receiver cannot see (M still
 * grows: the 1/M bias), and the final estimate, which is nee's for an untouched initial
 * reservoir. */
static void reservoir_merges_by_hand(void **state)
{
    (void)state;
    const struct pt_light lights[2] = {lamp_above(2.0f, 9), lamp_above(4.0f, 8)};
    const struct pt_sphere spheres[1] = {{{0.0f, -100.0f, 0.0f}, 100.0f}};
    const struct pt_material materials[1] = {{PT_DIFFUSE, {1.0f, 0.5f, 0.25f}, 0.0f}};
    struct pt_world w = tiny_world(spheres, materials, 3);
    w.lights = lights;
    w.light_count = 2;
    struct pt_primary_hit here = {{{0, 0, 0}, {0, 1, 0}, {1, 0.5f, 0.25f}}, 4.0f};
    struct spec_vec3 down = spec_v3(0.0f, -1.0f, 0.0f);
    struct pt_light_sample dim = pt_light_sample_at(lights[0], 0, down, 2);
    struct pt_light_sample bright = pt_light_sample_at(lights[1], 1, down, 2);
    assert_true(vec3_is(dim.point, 0, 2, 0));

    /* p^ = ((2 + 1) + 0.5) * 1/4 for colour (2, 1, 0.5); (4, 2, 1) for the bright lamp */
    float geometry;
    struct spec_vec3 colour;
    assert_true(pt_restir_target(here.at, dim, &geometry, &colour) == 0.875f);
    assert_true(geometry == 0.25f && vec3_is(colour, 2, 1, 0.5f));
    assert_true(pt_restir_target(here.at, bright, &geometry, &colour) == 1.75f);
    assert_true(pt_restir_target(here.at, pt_light_sample_none(), &geometry, &colour) == 0.0f);

    /* Initial candidates: the same sums and choices as nee's reservoir, the sample kept as its
     * light and normal; weight p^ * inv_pdf with inv_pdf = 2 * (4 pi * 1). */
    struct pt_restir_reservoir r = pt_restir_empty();
    struct pt_reservoir nee;
    pt_reservoir_start(&nee);
    const float choices[3] = {0.9f, 0.1f, 0.7f};
    const struct pt_light_sample offered[3] = {dim, bright, dim};
    for (int c = 0; c < 3; ++c) {
        pt_restir_add(&r, here.at, offered[c], choices[c]);
        pt_reservoir_add(&nee, here.at, offered[c], choices[c]);
        assert_true(r.weight_sum == nee.weight_sum && r.target == nee.target);
        assert_int_equal(w.lights[r.light].sphere, nee.sphere);
    }
    float inv_pdf = 2.0f * (4.0f * PT_PI * 1.0f);
    assert_true(dim.inverse_pdf == inv_pdf);
    assert_true(r.weight_sum == 0.875f * inv_pdf + 1.75f * inv_pdf + 0.875f * inv_pdf);
    /* kept: the first (any number), the bright one (0.1 * 2.625 inv_pdf < 1.75 inv_pdf), not
     * the last (0.7 * 3.5 inv_pdf >= 0.875 inv_pdf) */
    assert_int_equal(r.light, 1);

    /* A merge: r holds (light 0, wsum 7, p^ 0.875, M 8); other (light 1, wsum 12, p^' 0.5,
     * M 24) has W = 12 / (24 * 0.5) = 1 and weighs 1.75 * 1 * 24 = 42 here: wsum 49, M 32,
     * kept when u * 49 < 42. */
    struct pt_restir_reservoir receiver = reservoir_of(0, 7.0f, 0.875f, 8);
    struct pt_restir_reservoir other = reservoir_of(1, 12.0f, 0.5f, 24);
    struct pt_restir_reservoir keeps = receiver, leaves = receiver;
    pt_restir_merge(&keeps, here.at, other, bright, other.count, 0.85f);
    pt_restir_merge(&leaves, here.at, other, bright, other.count, 0.86f);
    assert_true(keeps.weight_sum == 49.0f && leaves.weight_sum == 49.0f);
    assert_true(keeps.count == 32 && leaves.count == 32);
    assert_true(keeps.light == 1 && keeps.target == 1.75f && vec3_is(keeps.normal, 0, -1, 0));
    assert_true(leaves.light == 0 && leaves.target == 0.875f);
    /* As `count` candidates: the same W, times 10 instead of 24. */
    struct pt_restir_reservoir fewer = receiver;
    pt_restir_merge(&fewer, here.at, other, bright, 10, 0.0f);
    assert_true(fewer.weight_sum == 7.0f + 17.5f && fewer.count == 18 && fewer.light == 1);
    /* Unseen from here (a sample whose light faces away), or no sample: no weight, M grows. */
    struct pt_light_sample away = pt_light_sample_at(lights[1], 1, spec_v3(0, 1, 0), 2);
    struct pt_restir_reservoir unseen = receiver, none = receiver;
    pt_restir_merge(&unseen, here.at, other, away, other.count, 0.0f);
    assert_true(unseen.weight_sum == 7.0f && unseen.count == 32 && unseen.light == 0);
    pt_restir_merge(&none, here.at, reservoir_of(-1, 0.0f, 0.0f, 8), pt_light_sample_none(), 8,
                    0.0f);
    assert_true(none.weight_sum == 7.0f && none.count == 16 && none.light == 0);
    /* M 0 changes nothing at all. */
    struct pt_restir_reservoir empty = receiver;
    pt_restir_merge(&empty, here.at, pt_restir_empty(), pt_light_sample_none(), 0, 0.0f);
    assert_int_equal(memcmp(&empty, &receiver, sizeof empty), 0);

    /* Temporal: previous M 400 counts as 160 (W = 200 / (400 * 0.5) = 1: weight 1.75 * 160 =
     * 280), with number 0 of key (pixel, sample, 1280). */
    struct pt_restir_reservoir previous = reservoir_of(1, 200.0f, 0.5f, 400);
    struct pt_restir_reservoir t = pt_restir_temporal(&w, here, receiver, here, previous, 77, 5);
    assert_true(t.weight_sum == 287.0f && t.count == 168);
    assert_int_equal(t.light, pt_random(77, 5, 1280, 0) * 287.0f < 280.0f ? 1 : 0);
    assert_int_equal(PT_RESTIR_COUNT_CAP, 160);
    /* nothing in frame 0, from an empty previous or into an empty current, nor from a hit
     * whose normal is 30 degrees off or whose depth is 11% off; 9% off is merged */
    struct pt_primary_hit tilted = here, farther = here, near = here;
    tilted.at.normal = spec_v3(0.5f, 0.8660254f, 0.0f);
    farther.depth = 4.44f;
    near.depth = 4.36f;
    const struct {
        struct pt_restir_reservoir current, previous;
        struct pt_primary_hit before;
        unsigned sample;
    } skipped[] = {{receiver, previous, here, 0},
                   {receiver, pt_restir_empty(), here, 5},
                   {pt_restir_empty(), previous, here, 5},
                   {receiver, previous, tilted, 5},
                   {receiver, previous, farther, 5}};
    for (size_t k = 0; k < sizeof skipped / sizeof *skipped; ++k) {
        struct pt_restir_reservoir same = pt_restir_temporal(
            &w, here, skipped[k].current, skipped[k].before, skipped[k].previous, 77,
            skipped[k].sample);
        assert_int_equal(memcmp(&same, &skipped[k].current, sizeof same), 0);
    }
    assert_true(pt_restir_temporal(&w, here, receiver, near, previous, 77, 5).count == 168);

    /* The estimate: (((2 / pi) * G) * wsum) / (M * p^) times the colour. */
    float scale = (2.0f / PT_PI) * 0.25f * 49.0f / (32.0f * 1.75f);
    struct spec_vec3 brought = pt_restir_contribution(keeps, 0.25f, spec_v3(4, 2, 1),
                                                      spec_v3(1, 1, 1));
    assert_true(vec3_is(brought, scale * 4, scale * 2, scale * 1));
    /* An untouched initial reservoir (M 8) brings what nee's does, to the bit. */
    struct pt_reservoir twin;
    pt_reservoir_start(&twin);
    pt_reservoir_add(&twin, here.at, dim, 0.0f);
    pt_reservoir_add(&twin, here.at, bright, 0.0f);
    struct pt_restir_reservoir initial = pt_restir_empty();
    pt_restir_add(&initial, here.at, dim, 0.0f);
    pt_restir_add(&initial, here.at, bright, 0.0f);
    initial.count = PT_NEE_CANDIDATES;
    pt_restir_target(here.at, pt_restir_sample(&w, initial), &geometry, &colour);
    struct spec_vec3 throughput = spec_v3(1.0f, 0.5f, 2.0f);
    assert_true(same_bits(pt_restir_contribution(initial, geometry, colour, throughput),
                          pt_nee_contribution(&twin, throughput)));

    /* Neighbour offsets: every value of -16 to 16 comes up, evenly, x and y apart. */
    int seen[33] = {0}, same_xy = 0;
    for (unsigned p = 0; p < 33u * 400u; ++p) {
        int dx = pt_restir_offset(p, 3, 0), dy = pt_restir_offset(p, 3, 1);
        assert_true(dx >= -16 && dx <= 16);
        ++seen[dx + 16];
        same_xy += dx == dy;
    }
    for (int k = 0; k < 33; ++k)
        if (seen[k] < 320 || seen[k] > 480) /* 400 expected, sd 20 */
            fail_msg("offset %d drawn %d times in %d", k - 16, seen[k], 33 * 400);
    assert_true(same_xy < 33 * 400 / 20);
}

/* The initial reservoir is nee's at the camera hit (the same candidates, numbers, sums and
 * choice), and pass 4 with it, nothing merged, is nee's sample to the bit with nee's rays: the
 * rest of the path is nee's own. */
static void initial_reservoir_is_nee_at_the_camera_hit(void **state)
{
    (void)state;
    struct pt_scene lamps = parse(LAMPS_SCENE("3"));
    struct pt_scene many = load("scenes/pt-many-lights.scene");
    const struct pt_world worlds[2] = {pt_scene_world(&lamps, 32, 24),
                                       pt_scene_world(&many, 40, 40)};
    int with = 0, kept = 0;
    for (int k = 0; k < 2; ++k) {
        const struct pt_world *w = &worlds[k];
        for (int j = 0; j < w->height; ++j)
            for (int i = 0; i < w->width; ++i)
                for (unsigned s = 0; s < 3; ++s) {
                    unsigned p = (unsigned)(j * w->width + i);
                    struct pt_primary_hit hit;
                    struct pt_restir_reservoir r = pt_restir_primary(w, i, j, s, &hit);
                    if (r.count) {
                        assert_int_equal(r.count, PT_NEE_CANDIDATES);
                        struct pt_reservoir nee;
                        pt_reservoir_start(&nee);
                        for (int c = 0; c < PT_NEE_CANDIDATES; ++c)
                            pt_reservoir_add(&nee, hit.at,
                                             pt_candidate(w, PT_ESTIMATOR_NEE, p, s, 1, c),
                                             pt_reservoir_choice(p, s, 1, c));
                        assert_true(r.weight_sum == nee.weight_sum && r.target == nee.target);
                        struct pt_light_sample y = pt_restir_sample(w, r);
                        assert_int_equal(y.sphere, nee.sphere);
                        if (nee.sphere >= 0)
                            assert_true(same_bits(y.point, nee.point));
                        ++with;
                        kept += r.light >= 0;
                    }
                    int rays, nee_rays;
                    struct spec_vec3 c = pt_restir_trace_sample(w, i, j, s, r, &rays);
                    struct spec_vec3 n = pt_trace_sample_with(w, PT_ESTIMATOR_NEE, i, j, s,
                                                              &nee_rays);
                    assert_true(same_bits(c, n) && rays == nee_rays);
                }
    }
    print_message("# %d camera hits with a reservoir, %d keep a sample\n", with, kept);
    assert_true(with > 2000 && kept > with / 2);
    pt_scene_free(&lamps);
    pt_scene_free(&many);
}

/* The mean brightness of the sums of `frames` frames, in units of 1. */
static double sums_mean(const unsigned long long *sums, const struct pt_world *world, int frames)
{
    double total = 0;
    for (size_t c = 0; c < (size_t)world->width * world->height * 3; ++c)
        total += (double)sums[c];
    return total / ((double)world->width * world->height * 3 * frames * PT_FIXED_ONE);
}

/* Reservoirs is biased (its 1/M weights count candidates that the receiver could not have
 * drawn): it converges to a picture a little darker than nee's. The bias is small: on the lamps
 * scene, where every bit of light comes through a shadow ray, its mean brightness after 1024
 * frames is within 2% of nee's; measured: nee 0.018267 (standard error 0.00002), reservoirs
 * 0.018148, -0.65% (without the temporal pass's similarity test, -3.0%; at 128x96, -0.9%). On
 * pt-quick, 64 frames: -0.06%. Mistakes this catches, each tried once by breaking
 * pt_reservoirs.h: dividing by 8 instead of M at the end (0.325), W' without its M' (19.6), the
 * temporal weight without the cap while M keeps it (13.3), a merge that keeps by a coin toss
 * (0.0292). Not caught here: M not grown by a merged reservoir that keeps no sample (0.018163);
 * reservoir_merges_by_hand catches that one. */
static void reservoirs_agree_with_nee_on_the_mean_brightness(void **state)
{
    (void)state;
    const int frames = 1024;
    struct pt_scene scene = parse(LAMPS_SCENE("3"));
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    unsigned long long rays_nee, rays_reservoirs;
    unsigned long long *nee = render_sums_with(&world, PT_ESTIMATOR_NEE, frames, 0, &rays_nee);
    unsigned long long *reservoirs =
        render_sums_with(&world, PT_ESTIMATOR_RESERVOIRS, frames, 0, &rays_reservoirs);
    double mean_nee = sums_mean(nee, &world, frames);
    double mean_reservoirs = sums_mean(reservoirs, &world, frames);
    print_message("# %d frames: nee %.6f, reservoirs %.6f (%+.2f%%); rays %llu, %llu\n", frames,
                  mean_nee, mean_reservoirs, 100.0 * (mean_reservoirs / mean_nee - 1.0), rays_nee,
                  rays_reservoirs);
    if (!(fabs(mean_reservoirs - mean_nee) <= 0.02 * mean_nee))
        fail_msg("reservoirs %.6f is more than 2%% from nee %.6f", mean_reservoirs, mean_nee);
    assert_true(memcmp(nee, reservoirs, (size_t)world.width * world.height * 3 *
                                            sizeof *nee) != 0);
    /* one shadow ray at most at the camera hit, as nee: within 1% of nee's count */
    assert_true(rays_reservoirs > rays_nee * 99 / 100 && rays_reservoirs < rays_nee * 101 / 100);
    free(nee);
    free(reservoirs);
    pt_scene_free(&scene);
}

/* The 8-bit picture's RMS difference from `reference` over the pixels (all, or only those in
 * mask), each made of `sums` of `frames` frames. */
static double picture_rms(const unsigned long long *sums, int frames,
                          const unsigned long long *reference, int reference_frames,
                          const char *mask, size_t pixels)
{
    double squares = 0;
    size_t counted = 0;
    for (size_t p = 0; p < pixels; ++p)
        if (!mask || mask[p])
            for (int c = 0; c < 3; ++c) {
                double d = (double)pt_pixel_channel(sums[p * 3 + c], frames) -
                           (double)pt_pixel_channel(reference[p * 3 + c], reference_frames);
                squares += d * d;
                ++counted;
            }
    return sqrt(squares / (double)counted);
}

/* The point of the lesson, measured: at 128x128 on the many-lights scene, each against a
 * 64-frame render of its own estimator, in 8-bit levels over the pixels whose camera ray meets
 * a diffuse surface in frames 0 to 8 (where reservoirs differ from nee), a frame of reservoirs
 * is much less noisy than a frame of nee once the reservoirs have a history (frame 8 alone: the
 * sums of 9 frames less those of 8), and 8 frames accumulated are a little less noisy.
 * Measured: frame 8 alone 17.62 against 23.18 (-24%); 8 frames 13.32 against 13.64 (-2.3%);
 * the whole picture 34.73 against 36.39 and 19.35 against 19.48 (the sky, the lamps seen
 * directly and the bounces are alike in both). The accumulated gain is small because temporal
 * reuse correlates the frames: at 64x64 (16 frames, 256 for the reference), where the 33-pixel
 * window holds few similar neighbours, frame 16 alone is 18.40 against 22.20 (-17%) but 16
 * frames are 13.15 against 11.29 (+16%); at 128x128, 16 frames: 10.10 against 10.20. ReSTIR
 * is made for one frame at a time. */
static void reservoirs_cut_the_noise_of_a_frame(void **state)
{
    (void)state;
    const int side = 128, frame = 8, reference_frames = 64;
    struct pt_scene scene = load("scenes/pt-many-lights.scene");
    struct pt_world world = pt_scene_world(&scene, side, side);
    size_t pixels = (size_t)side * side;
    char *diffuse = calloc(pixels, 1);
    assert_non_null(diffuse);
    size_t diffuse_pixels = 0;
    for (int j = 0; j < side; ++j)
        for (int i = 0; i < side; ++i) {
            int always = 1;
            for (unsigned s = 0; s <= (unsigned)frame && always; ++s) {
                struct pt_primary_hit hit;
                always = pt_restir_primary(&world, i, j, s, &hit).count > 0;
            }
            diffuse[j * side + i] = (char)always;
            diffuse_pixels += (size_t)always;
        }
    const int estimators[2] = {PT_ESTIMATOR_NEE, PT_ESTIMATOR_RESERVOIRS};
    double alone[2], accumulated[2], alone_all[2], accumulated_all[2];
    for (int k = 0; k < 2; ++k) {
        unsigned long long rays;
        unsigned long long *before = render_sums_with(&world, estimators[k], frame, 0, &rays);
        unsigned long long *after = render_sums_with(&world, estimators[k], frame + 1, 0, &rays);
        unsigned long long *reference =
            render_sums_with(&world, estimators[k], reference_frames, 0, &rays);
        for (size_t c = 0; c < pixels * 3; ++c)
            after[c] -= before[c]; /* frame `frame` alone: frames are rendered in order */
        alone[k] = picture_rms(after, 1, reference, reference_frames, diffuse, pixels);
        accumulated[k] = picture_rms(before, frame, reference, reference_frames, diffuse, pixels);
        alone_all[k] = picture_rms(after, 1, reference, reference_frames, NULL, pixels);
        accumulated_all[k] = picture_rms(before, frame, reference, reference_frames, NULL, pixels);
        print_message("# %-10s frame %d alone %.2f, %d frames %.2f (8-bit RMS over %zu diffuse "
                      "pixels); whole picture %.2f, %.2f\n",
                      pt_estimator_name(estimators[k]), frame, alone[k], frame, accumulated[k],
                      diffuse_pixels, alone_all[k], accumulated_all[k]);
        free(before);
        free(after);
        free(reference);
    }
    assert_true(diffuse_pixels > pixels / 3);
    if (!(alone[1] < 0.85 * alone[0]))
        fail_msg("a frame of reservoirs (%.2f) is not 15%% less noisy than nee's (%.2f)",
                 alone[1], alone[0]);
    if (!(accumulated[1] < accumulated[0]))
        fail_msg("%d frames of reservoirs (%.2f) are noisier than nee's (%.2f)", frame,
                 accumulated[1], accumulated[0]);
    free(diffuse);
    pt_scene_free(&scene);
}

/* ---- The program --------------------------------------------------------------------------- */

static void program_writes_the_image_and_prints_the_rays(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char out[128], small[128];
    snprintf(out, sizeof out, "%s/pt.png", folder);
    snprintf(small, sizeof small, "%s/small.ppm", folder);
    struct command_result *r =
        run_shell("%s/pt-reference --scene " QUICK_SCENE " --output %s", test_build_dir(), out);
    if (r->exit_code)
        print_message("# %s", r->err);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "");
    assert_non_null(strstr(r->out, " 257567 rays "));
    assert_non_null(strstr(r->out, "128x128, 21 spheres, 8 samples"));
    struct image written, golden = golden_image();
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_read(out, &written, error, sizeof error), 0);
    assert_int_equal(differing_pixels(NULL, &golden, &written), 0);
    image_free(&written);
    image_free(&golden);

    /* --size, --samples and --threads: the library's image and count at that size. */
    r = run_shell("%s/pt-reference --scene " QUICK_SCENE " --size 24x10 --samples 3 --threads 2 "
                  "--output %s",
                  test_build_dir(), small);
    assert_int_equal(r->exit_code, 0);
    struct pt_scene scene = load(QUICK_SCENE);
    struct pt_world world = pt_scene_world(&scene, 24, 10);
    unsigned long long rays;
    unsigned long long *sums = render_sums(&world, 3, 1, &rays);
    char count[64];
    snprintf(count, sizeof count, " %llu rays ", rays);
    assert_non_null(strstr(r->out, count));
    assert_non_null(strstr(r->out, "24x10, 21 spheres, 3 samples"));
    struct image expected = image_of_sums(sums, 24, 10, 3);
    assert_int_equal(image_read(small, &written, error, sizeof error), 0);
    assert_int_equal(differing_pixels(NULL, &expected, &written), 0);
    image_free(&written);
    image_free(&expected);
    free(sums);
    pt_scene_free(&scene);

    /* No --output: refused, nothing rendered. */
    r = run_shell("%s/pt-reference --scene " QUICK_SCENE, test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->out, "");
    assert_string_equal(r->err, "pt-reference: error: --output FILE is required\n");
    /* ... as its --help says. */
    r = run_shell("%s/pt-reference --help", test_build_dir());
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "--output FILE   write the image, .png or .ppm (required)"));
    remove_temporary_folder(folder);
}

/* --estimator NAME: that estimator's golden image and ray count, named in the output line; the
 * default is path; an unknown name is one line on stderr, status 2, no image. */
static void program_takes_the_estimator(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char out[128];
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e) {
        const char *name = pt_estimator_name(quick[e].estimator);
        snprintf(out, sizeof out, "%s/%s.png", folder, name);
        struct command_result *r =
            run_shell("%s/pt-reference --scene " QUICK_SCENE " --estimator %s --output %s",
                      test_build_dir(), name, out);
        if (r->exit_code)
            print_message("# %s", r->err);
        assert_int_equal(r->exit_code, 0);
        assert_string_equal(r->err, "");
        char expected[128];
        snprintf(expected, sizeof expected, "8 samples, estimator %s, %llu rays ", name,
                 quick[e].rays);
        assert_non_null(strstr(r->out, expected));
        struct image written, golden = golden_image_of(quick[e].golden);
        char error[IMAGE_ERROR_BYTES];
        assert_int_equal(image_read(out, &written, error, sizeof error), 0);
        assert_int_equal(differing_pixels(NULL, &golden, &written), 0);
        image_free(&written);
        image_free(&golden);
    }
    struct command_result *r = run_shell("%s/pt-reference --scene " QUICK_SCENE " --size 8x8 "
                                         "--output %s/default.png",
                                         test_build_dir(), folder);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, ", estimator path, "));
    r = run_shell("%s/pt-reference --scene " QUICK_SCENE " --estimator bogus --output %s/bogus.png",
                  test_build_dir(), folder);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->out, "");
    assert_string_equal(r->err, "pt-reference: error: --estimator 'bogus': no such estimator; "
                                "path, nee, light-pool or reservoirs (see --help)\n");
    snprintf(out, sizeof out, "%s/bogus.png", folder);
    assert_int_equal(access(out, F_OK), -1);
    r = run_shell("%s/pt-reference --help", test_build_dir());
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "--estimator E"));
    assert_non_null(strstr(r->out, "reservoirs"));
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quick_scene_is_the_golden_image_with_a_fixed_ray_count),
        cmocka_unit_test(sums_do_not_depend_on_the_thread_count),
        cmocka_unit_test(random_numbers_are_the_spec_hash_in_0_1),
        cmocka_unit_test(fixed_point_edge_cases),
        cmocka_unit_test(pixel_channel_edge_cases),
        cmocka_unit_test(sphere_hits_by_hand),
        cmocka_unit_test(light_ends_the_path_with_its_emission),
        cmocka_unit_test(mirror_reflects_exactly),
        cmocka_unit_test(glass_of_index_1_lets_rays_straight_through),
        cmocka_unit_test(diffuse_directions_are_unit_and_outward),
        cmocka_unit_test(paths_in_tiny_worlds),
        cmocka_unit_test(scenes_list_their_lights),
        cmocka_unit_test(light_samples_by_hand_and_drawn),
        cmocka_unit_test(reservoir_by_hand),
        cmocka_unit_test(estimators_agree_on_the_mean_brightness),
        cmocka_unit_test(next_event_adds_only_shadow_rays),
        cmocka_unit_test(light_pool_candidates_come_from_their_tile_pool),
        cmocka_unit_test(reservoirs_without_lights_or_reuse_are_the_path_estimator),
        cmocka_unit_test(reservoirs_do_not_depend_on_order_threads_or_runs),
        cmocka_unit_test(reservoir_merges_by_hand),
        cmocka_unit_test(initial_reservoir_is_nee_at_the_camera_hit),
        cmocka_unit_test(reservoirs_agree_with_nee_on_the_mean_brightness),
        cmocka_unit_test(reservoirs_cut_the_noise_of_a_frame),
        cmocka_unit_test(program_writes_the_image_and_prints_the_rays),
        cmocka_unit_test(program_takes_the_estimator),
    };
    return cmocka_run_group_tests_name("path-tracing reference", tests, NULL, NULL);
}
