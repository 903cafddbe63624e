/* The path-tracing track's CPU reference and its arithmetic (common/pathtrace/SPEC.md,
 * pt_math.h): the committed golden image of scenes/pt-quick.scene (tests/golden/pt-quick.png,
 * written by build/pt-reference), the ray count, independence from the number of threads, and
 * the building blocks on hand-computed cases. Needs no GPU. Run from the repository root. */
#include "test_support.h"

#include <math.h>

#include "image.h"
#include "pathtrace/pt_reference.h"
#include "pathtrace/pt_scene.h"

#define QUICK_SCENE "scenes/pt-quick.scene"
#define GOLDEN "tests/golden/pt-quick.png"
/* build/pt-reference --scene scenes/pt-quick.scene: 128x128 pixels, 8 samples, at most 8
 * segments. The count only changes when the arithmetic or the scene does (then the golden image
 * does too, and both are written anew). */
#define QUICK_RAYS 257567ULL
#define QUICK_SIDE 128
#define QUICK_SAMPLES 8

static struct pt_scene load(const char *path)
{
    struct pt_scene scene;
    char error[512];
    int loaded = pt_scene_load(path, &scene, error, sizeof error);
    if (loaded)
        fail_msg("%s", error);
    return scene;
}

static struct image golden_image(void)
{
    struct image golden;
    char error[IMAGE_ERROR_BYTES];
    int read = image_read(GOLDEN, &golden, error, sizeof error);
    if (read)
        fail_msg("%s", error);
    assert_int_equal(golden.width, QUICK_SIDE);
    assert_int_equal(golden.height, QUICK_SIDE);
    return golden;
}

static unsigned long long *render_sums(const struct pt_world *world, int samples, int threads,
                                       unsigned long long *rays)
{
    size_t channels = (size_t)world->width * (size_t)world->height * 3;
    unsigned long long *sums = calloc(channels, sizeof *sums);
    assert_non_null(sums);
    *rays = pt_reference_render(world, samples, threads, sums);
    return sums;
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

static long long differing_pixels(const struct image *a, const struct image *b)
{
    struct image_difference diff;
    assert_int_equal(image_compare(a, b, &diff), 0);
    if (diff.differing_pixels)
        print_message("# %lld pixels differ (largest channel difference %d)\n",
                      diff.differing_pixels, diff.largest_channel_difference);
    return diff.differing_pixels;
}

/* ---- The whole render ----------------------------------------------------------------------- */

static void quick_scene_is_the_golden_image_with_a_fixed_ray_count(void **state)
{
    (void)state;
    struct pt_scene scene = load(QUICK_SCENE);
    assert_int_equal(scene.width, QUICK_SIDE);
    assert_int_equal(scene.samples, QUICK_SAMPLES);
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    unsigned long long rays;
    unsigned long long *sums = render_sums(&world, scene.samples, 0, &rays);
    print_message("# %llu rays\n", rays);
    assert_true(rays == QUICK_RAYS);
    struct image image = image_of_sums(sums, scene.width, scene.height, scene.samples);
    struct image golden = golden_image();
    assert_int_equal(differing_pixels(&golden, &image), 0);
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

/* ---- Random numbers --------------------------------------------------------------------------- */

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

static int vec3_is(struct spec_vec3 v, float x, float y, float z)
{
    return v.x == x && v.y == y && v.z == z;
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
    struct pt_world w;
    w.spheres = sphere;
    w.materials = m;
    w.sphere_count = 1;
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
    assert_true(pt_reference_render(&w, 3, 2, sums) == 8ULL * 6ULL * 3ULL);
    assert_true(sums[0] == 3ULL * 3ULL * 65536ULL && sums[1] == 3ULL * 2ULL * 65536ULL);
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
    assert_int_equal(differing_pixels(&golden, &written), 0);
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
    assert_int_equal(differing_pixels(&expected, &written), 0);
    image_free(&written);
    image_free(&expected);
    free(sums);
    pt_scene_free(&scene);

    /* No --output: refused, nothing rendered. */
    r = run_shell("%s/pt-reference --scene " QUICK_SCENE, test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->out, "");
    assert_string_equal(r->err, "pt-reference: error: --output FILE is required\n");
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
        cmocka_unit_test(program_writes_the_image_and_prints_the_rays),
    };
    return cmocka_run_group_tests_name("path-tracing reference", tests, NULL, NULL);
}
