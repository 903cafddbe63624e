/* The bounding volume hierarchy (common/raytrace/bvh.c, common/raytrace/spec_bvh.h) against
 * SPEC.md's loops over
 * every sphere, which stay the definition: the same nearest hit (ties to the first sphere in file
 * order) and the same shadows on random rays and random scenes (overlapping and coincident
 * spheres, rays that graze a sphere, origins inside spheres, radii from 0.001 to 10,000), the
 * same image from the CPU reference both ways, and 100,000 spheres at 256x256 in seconds. The
 * same for the path tracer (common/pathtrace/pt_bvh.h, pt_math.h's pt_closest_hit_in_tree). */
/* pt_closest_hit walks a world's tree when it has one (pt_math.h). */
#define PT_WORLD_MAY_HAVE_A_TREE
#include "test_support.h"

#include <math.h>

#include "raytrace/bvh.h"
#include "raytrace/cpu_reference.h"
#include "pathtrace/pt_bvh.h"
#include "pathtrace/pt_reference.h"
#include "runtime/report.h"

/* A small deterministic generator (xorshift64*), so every run tests the same cases. */
static unsigned long long rng_state;

static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    unsigned long long x = rng_state * 2685821657736338717ULL;
    return lo + (hi - lo) * (double)(x >> 11) / 9007199254740992.0;
}

static struct spec_vec3 random_point(double extent)
{
    return spec_v3((float)uniform(-extent, extent), (float)uniform(-extent, extent),
                   (float)uniform(-extent, extent));
}

/* count spheres within extent of the origin, radii log-uniform in [r_lo, r_hi]; a few of them
 * copies of earlier ones (coincident spheres: the tie rule decides between them). */
static struct spec_sphere *random_spheres(int count, double extent, double r_lo, double r_hi)
{
    struct spec_sphere *s = malloc((size_t)count * sizeof *s);
    assert_non_null(s);
    for (int k = 0; k < count; ++k) {
        if (k > 2 && uniform(0, 1) < 0.05) {
            s[k] = s[(int)uniform(0, k)];
            continue;
        }
        s[k].centre = random_point(extent);
        s[k].radius = (float)(r_lo * pow(r_hi / r_lo, uniform(0, 1)));
        s[k].colour = spec_v3((float)uniform(0, 1), (float)uniform(0, 1), (float)uniform(0, 1));
    }
    return s;
}

struct ray_case {
    struct spec_vec3 origin, direction;
};

/* A ray of one of the kinds that test a hierarchy's boxes hardest: from anywhere to a sphere's
 * rim (grazing it, inside or outside by a hair); from far away past a sphere by a few to a few
 * hundred radii, where spec_intersect's rounded discriminant reports hits on rays that miss (the
 * reason the boxes are widened: SPEC_BVH_REACH); from a sphere's surface outwards; from inside a
 * sphere; along an axis (a zero direction component). */
static struct ray_case random_ray(const struct spec_sphere *spheres, int count, double extent)
{
    struct ray_case ray;
    const struct spec_sphere *s = &spheres[(int)uniform(0, count)];
    int kind = (int)uniform(0, 5);
    ray.origin = random_point(extent * 1.5);
    if (kind == 4) { /* from far away, past the sphere */
        struct spec_vec3 away = spec_norm(random_point(1.0));
        ray.origin = spec_add(s->centre, spec_scale((float)(extent * uniform(2, 200)), away));
        struct spec_vec3 side = spec_norm(random_point(1.0));
        struct spec_vec3 past = spec_add(s->centre, spec_scale(s->radius * (float)uniform(1, 300), side));
        ray.direction = spec_sub(past, ray.origin);
    } else if (kind == 0) { /* to the rim: the target point at radius (1 + tiny) from the centre */
        struct spec_vec3 n = spec_norm(random_point(1.0));
        float scale = s->radius * (float)(1.0 + uniform(-1e-5, 1e-5));
        ray.direction = spec_sub(spec_add(s->centre, spec_scale(scale, n)), ray.origin);
    } else if (kind == 1) { /* from the surface, lifted as SPEC.md lifts a hit point */
        struct spec_vec3 n = spec_norm(random_point(1.0));
        ray.origin = spec_add(s->centre, spec_scale(s->radius + SPEC_SURFACE_OFFSET, n));
        ray.direction = random_point(1.0);
    } else if (kind == 2) { /* from inside */
        ray.origin = spec_add(s->centre, spec_scale(s->radius * 0.5f, spec_norm(random_point(1.0))));
        ray.direction = random_point(1.0);
    } else { /* along an axis */
        ray.direction = spec_v3(0, 0, 0);
        float sign = uniform(0, 1) < 0.5 ? -1.0f : 1.0f;
        int axis = (int)uniform(0, 3);
        ray.origin = s->centre;
        if (axis == 0) { ray.direction.x = sign; ray.origin.x -= sign * (float)extent; }
        if (axis == 1) { ray.direction.y = sign; ray.origin.y -= sign * (float)extent; }
        if (axis == 2) { ray.direction.z = sign; ray.origin.z -= sign * (float)extent; }
    }
    return ray;
}

/* The random scenes of both tracks' tree tests: every scale the specification allows, from
 * radii of 0.001 to 10,000 (count, extent of the centres, radii from r_lo to r_hi). */
static const struct {
    int count;
    double extent, r_lo, r_hi;
} scales[] = {
    {100, 5, 0.01, 0.5},      {1000, 10, 0.001, 1},     {3000, 3, 0.05, 0.5},
    {500, 10000, 1, 10000},   {2000, 100, 0.001, 0.01}, {64, 1, 0.001, 10000},
    {5000, 1000, 0.5, 50},
};

/* Every node's box holds its children's (or its spheres'), every sphere is in one leaf, and the
 * tree is no deeper than the traversal's stack. */
static void assert_well_formed(const struct bvh *bvh, const struct spec_sphere *spheres, int count)
{
    assert_true(bvh->depth < SPEC_BVH_STACK);
    assert_true(bvh->node_count <= 2 * count);
    int *seen = calloc((size_t)count, sizeof *seen);
    assert_non_null(seen);
    for (int n = 0; n < bvh->node_count; ++n) {
        const struct spec_bvh_node *node = &bvh->nodes[n];
        if (node->count > 0) {
            assert_true(node->count <= SPEC_BVH_LEAF_SPHERES);
            for (int k = 0; k < node->count; ++k) {
                const struct spec_sphere *s = &spheres[bvh->order[node->first + k]];
                seen[bvh->order[node->first + k]]++;
                assert_true(s->centre.x - s->radius >= node->lo.x && s->centre.x + s->radius <= node->hi.x);
                assert_true(s->centre.y - s->radius >= node->lo.y && s->centre.y + s->radius <= node->hi.y);
                assert_true(s->centre.z - s->radius >= node->lo.z && s->centre.z + s->radius <= node->hi.z);
            }
        } else {
            for (int c = 0; c < 2; ++c) {
                const struct spec_bvh_node *child = &bvh->nodes[node->first + c];
                assert_true(child->lo.x >= node->lo.x && child->hi.x <= node->hi.x);
                assert_true(child->lo.y >= node->lo.y && child->hi.y <= node->hi.y);
                assert_true(child->lo.z >= node->lo.z && child->hi.z <= node->hi.z);
            }
        }
    }
    for (int k = 0; k < count; ++k)
        assert_int_equal(seen[k], 1);
    free(seen);
}

/* Random scenes at every scale the specification allows: the hierarchy's answer is the loops'. */
static void the_hierarchy_finds_what_the_loops_find(void **state)
{
    (void)state;
    long long rays = 0, hits = 0, shadows = 0, rounded_hits = 0;
    for (size_t c = 0; c < sizeof scales / sizeof *scales; ++c) {
        rng_state = 0x9E3779B97F4A7C15ULL + c;
        int count = scales[c].count;
        struct spec_sphere *spheres = random_spheres(count, scales[c].extent, scales[c].r_lo, scales[c].r_hi);
        struct bvh bvh;
        assert_int_equal(bvh_build(spheres, count, &bvh), 0);
        assert_well_formed(&bvh, spheres, count);
        struct spec_bvh view = bvh_view(&bvh);
        struct spec_world world = {spheres, count, {0, 0, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0.1f, 0.7f, 0.7f};
        for (int r = 0; r < 20000; ++r) {
            struct ray_case ray = random_ray(spheres, count, scales[c].extent);
            float t_loops, t_tree;
            int by_loops = spec_closest_hit(&world, ray.origin, ray.direction, &t_loops);
            int by_tree = spec_bvh_closest_hit(&world, &view, ray.origin, ray.direction, &t_tree);
            if (by_loops != by_tree || memcmp(&t_loops, &t_tree, sizeof t_loops) != 0)
                fail_msg("scale %zu, ray %d: the loops hit sphere %d at t = %.9g, the hierarchy %d at %.9g",
                         c, r, by_loops, (double)t_loops, by_tree, (double)t_tree);
            float s_loops = spec_shadow(&world, ray.origin, ray.direction);
            float s_tree = spec_bvh_shadow(&world, &view, ray.origin, ray.direction);
            if (s_loops != s_tree)
                fail_msg("scale %zu, ray %d: shadow %g by the loops, %g through the hierarchy", c, r,
                         (double)s_loops, (double)s_tree);
            ++rays;
            hits += by_loops >= 0;
            /* A hit the geometry denies: the ray passes the sphere farther than its radius. */
            if (by_loops >= 0) {
                const struct spec_sphere *s = &spheres[by_loops];
                struct spec_vec3 oc = spec_sub(s->centre, ray.origin);
                double dd = spec_dot(ray.direction, ray.direction), along = spec_dot(oc, ray.direction);
                double miss2 = spec_dot(oc, oc) - along * along / dd;
                rounded_hits += miss2 > (double)s->radius * s->radius * 1.01;
            }
            shadows += s_loops < 1.0f;
        }
        bvh_free(&bvh);
        free(spheres);
    }
    print_message("# %lld rays: %lld nearest hits (%lld of them on rays that miss the sphere, found "
                  "by rounding) and %lld shadows, the same both ways\n", rays, hits, rounded_hits, shadows);
    /* The cases are not all misses, and some hits exist only by rounding (without the boxes'
     * widening the hierarchy would lose them): a test that cannot fail is no test. */
    assert_true(hits > rays / 4 && shadows > rays / 4 && rounded_hits > 100);
}

/* ---- The cone test (spec_bvh.h: spec_bvh_cone_entry) ----------------------------------------- */

/* A direction at the cone test's edges: one component set to 0, to a tiny fraction of the
 * direction's length, to exactly the cone's slope k (either sign; the slope depends on that
 * component too, so it is set until it stops moving) or to the next float above k; or the
 * direction kept (kind 0). *at_k counts the components that came out exactly +-k. */
static struct spec_vec3 edge_direction(struct spec_vec3 origin, struct spec_vec3 d, int kind,
                                       long long *at_k)
{
    float *axis = (int)uniform(0, 3) == 0 ? &d.x : uniform(0, 1) < 0.5 ? &d.y : &d.z;
    float sign = uniform(0, 1) < 0.5 ? -1.0f : 1.0f;
    if (kind == 1)
        *axis = 0.0f;
    else if (kind == 2)
        *axis = sign * sqrtf(spec_dot(d, d)) * (float)uniform(1e-9, 1e-6);
    else if (kind == 3 || kind == 4) {
        for (int k = 0; k < 8; ++k)
            *axis = sign * spec_bvh_cone_of_ray(origin, d).slope;
        if (kind == 4)
            *axis = nextafterf(*axis, sign * INFINITY);
        *at_k += fabsf(*axis) == spec_bvh_cone_of_ray(origin, d).slope;
    }
    return d;
}

/* The walk through the cone test finds what the loops over every sphere find, on the random
 * scenes and rays of the hierarchy's test, half of them with a direction at the cone's edges.
 * And the test can fail: a cone a tenth as wide loses hits on the same rays; boxes not widened
 * by spec_bvh_cone_widen_box are counted too (reported, not required to lose any). */
static void the_cone_test_finds_what_the_loops_find(void **state)
{
    (void)state;
    const float slope = SPEC_BVH_CONE_SLOPE, thin = SPEC_BVH_CONE_SLOPE / 10;
    long long rays = 0, hits = 0, shadows = 0, at_k = 0, thin_lost = 0, bare_lost = 0;
    for (size_t c = 0; c < sizeof scales / sizeof *scales; ++c) {
        rng_state = 0xD1B54A32D192ED03ULL + c;
        int count = scales[c].count;
        struct spec_sphere *spheres =
            random_spheres(count, scales[c].extent, scales[c].r_lo, scales[c].r_hi);
        struct bvh bvh;
        assert_int_equal(bvh_build(spheres, count, &bvh), 0);
        struct spec_bvh_node *widened = malloc((size_t)bvh.node_count * sizeof *widened);
        assert_non_null(widened);
        for (int n = 0; n < bvh.node_count; ++n)
            widened[n] = spec_bvh_cone_widen_box(&bvh.nodes[n]);
        const struct spec_bvh wide = {widened, bvh.node_count, bvh.order}, bare = bvh_view(&bvh);
        struct spec_world world = {spheres,   count,     {0, 0, 1}, {0, 0, 0}, {1, 1, 1},
                                   {1, 1, 1}, 0.1f,      0.7f,      0.7f};
        for (int r = 0; r < 20000; ++r) {
            struct ray_case ray = random_ray(spheres, count, scales[c].extent);
            int kind = r % 2 ? 0 : (int)uniform(1, 5);
            ray.direction = edge_direction(ray.origin, ray.direction, kind, &at_k);
            struct spec_vec3 o = ray.origin, d = ray.direction;
            float t_loops, t_cone;
            int by_loops = spec_closest_hit(&world, o, d, &t_loops);
            int by_cone = spec_bvh_cone_closest_hit(&world, &wide, o, d, slope, &t_cone);
            if (by_loops != by_cone || memcmp(&t_loops, &t_cone, sizeof t_loops) != 0)
                fail_msg("scale %zu, ray %d: the loops hit sphere %d at t = %.9g, the cone %d at "
                         "%.9g", c, r, by_loops, (double)t_loops, by_cone, (double)t_cone);
            float s_loops = spec_shadow(&world, o, d);
            float s_cone = spec_bvh_cone_shadow(&world, &wide, o, d, slope);
            if (s_loops != s_cone)
                fail_msg("scale %zu, ray %d: shadow %g by the loops, %g through the cone", c, r,
                         (double)s_loops, (double)s_cone);
            ++rays;
            hits += by_loops >= 0;
            shadows += s_loops < 1.0f;
            /* The weakened tests, on the same ray: a lost hit or shadow counts once. */
            float t_thin, t_bare;
            int by_thin = spec_bvh_cone_closest_hit(&world, &wide, o, d, thin, &t_thin);
            int by_bare = spec_bvh_cone_closest_hit(&world, &bare, o, d, slope, &t_bare);
            thin_lost += by_thin != by_loops || t_thin != t_loops ||
                         spec_bvh_cone_shadow(&world, &wide, o, d, thin) != s_loops;
            bare_lost += by_bare != by_loops || t_bare != t_loops ||
                         spec_bvh_cone_shadow(&world, &bare, o, d, slope) != s_loops;
        }
        /* Rays no scene hits or every box keeps: a zero, a tiny (d.d underflows), a huge (d.d
         * overflows) and an infinite direction, a NaN origin. */
        const struct ray_case odd[] = {
            {{0, 0, 1}, {0, 0, 0}},       {{0, 0, 1}, {1e-20f, -1e-20f, 1e-21f}},
            {{0, 0, 1}, {1e20f, 3e19f, -2e20f}}, {{0, 0, 1}, {INFINITY, 1, 0}},
            {{NAN, 0, 1}, {0.3f, -0.2f, -1}},
        };
        for (size_t r = 0; r < sizeof odd / sizeof *odd; ++r) {
            struct spec_vec3 o = odd[r].origin, d = odd[r].direction;
            float t_loops, t_cone;
            int by_loops = spec_closest_hit(&world, o, d, &t_loops);
            int by_cone = spec_bvh_cone_closest_hit(&world, &wide, o, d, slope, &t_cone);
            assert_int_equal(by_loops, by_cone);
            assert_memory_equal(&t_loops, &t_cone, sizeof t_loops);
            float s_cone = spec_bvh_cone_shadow(&world, &wide, o, d, slope);
            assert_true(spec_shadow(&world, o, d) == s_cone);
        }
        free(widened);
        bvh_free(&bvh);
        free(spheres);
    }
    print_message("# cone: %lld rays (%lld with a direction component exactly +-k): %lld nearest "
                  "hits and %lld shadows, the same both ways; a tenth of the slope loses %lld "
                  "rays' answers, boxes not widened %lld\n",
                  rays, at_k, hits, shadows, thin_lost, bare_lost);
    assert_true(hits > rays / 4 && shadows > rays / 4 && at_k > 1000 && thin_lost > 0);
}

/* Many spheres on one centre: no split separates them, and the tree stays within the stack. */
static void coincident_spheres_keep_the_tree_shallow(void **state)
{
    (void)state;
    int count = 100000;
    struct spec_sphere *spheres = malloc((size_t)count * sizeof *spheres);
    assert_non_null(spheres);
    for (int k = 0; k < count; ++k)
        spheres[k] = (struct spec_sphere){{1, 2, -3}, 0.5f + (float)(k % 3), {0.5f, 0.5f, 0.5f}};
    struct bvh bvh;
    assert_int_equal(bvh_build(spheres, count, &bvh), 0);
    assert_well_formed(&bvh, spheres, count);
    struct spec_bvh view = bvh_view(&bvh);
    struct spec_world world = {spheres, count, {0, 0, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0.1f, 0.7f, 0.7f};
    float t;
    /* The nearest surface is the largest sphere's (radius 2.5): the first of them, sphere 2. */
    assert_int_equal(spec_bvh_closest_hit(&world, &view, spec_v3(0, 0, 1), spec_v3(1, 2, -4), &t), 2);
    bvh_free(&bvh);
    free(spheres);
}

/* A scene of DIR/NAME made by scenes/generate-random.py (python3) with OPTIONS; 0 when it cannot
 * be made. */
static int generated_scene(const char *dir, int count, const char *size, const char *options,
                           struct scene *scene)
{
    struct command_result *r = run_shell("python3 scenes/generate-random.py %d --size %s %s > '%s/random.scene'",
                                         count, size, options, dir);
    if (r->exit_code != 0)
        return 0;
    char path[512], error[SCENE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/random.scene", dir);
    int loaded = scene_load(path, scene, error, sizeof error);
    if (loaded)
        print_message("# %s\n", error);
    assert_int_equal(loaded, 0);
    return 1;
}

/* The CPU reference's image through the hierarchy is the loops' image, byte for byte, on spheres
 * spread at random and on the same count in dense clumps with four large ones (--clustered). */
static void the_cpu_reference_renders_the_same_image_both_ways(void **state)
{
    (void)state;
    const char *shapes[] = {"", "--clustered"};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        char *dir = make_temporary_folder();
        struct scene scene;
        if (!generated_scene(dir, 2000, "96x64", shapes[k], &scene)) {
            remove_temporary_folder(dir);
            print_message("skipped: python3 could not run scenes/generate-random.py\n");
            skip();
        }
        struct image a, b;
        assert_int_equal(image_alloc(&a, 96, 64), 0);
        assert_int_equal(image_alloc(&b, 96, 64), 0);
        unsigned long long through_tree = cpu_reference_render(&scene, 96, 64, 2, &a);
        unsigned long long by_loops = cpu_reference_render_every_sphere(&scene, 96, 64, 2, &b);
        assert_true(through_tree == by_loops);
        assert_memory_equal(a.rgb, b.rgb, (size_t)96 * 64 * 3);
        image_free(&a);
        image_free(&b);
        scene_free(&scene);
        remove_temporary_folder(dir);
    }
}

/* The bound: 100,000 spheres at 256x256 within 10 s on a 2-core machine. */
static void a_hundred_thousand_spheres_in_seconds(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    struct scene scene;
    if (!generated_scene(dir, 99999, "256x256", "", &scene)) {
        remove_temporary_folder(dir);
        print_message("skipped: python3 could not run scenes/generate-random.py\n");
        skip();
    }
    assert_int_equal(scene.sphere_count, 100000);
    struct image image;
    assert_int_equal(image_alloc(&image, 256, 256), 0);
    double start = timer_now_us();
    cpu_reference_render(&scene, 256, 256, 2, &image);
    double seconds = (timer_now_us() - start) * 1e-6;
    print_message("# 100,000 spheres at 256x256 on 2 threads: %.2f s\n", seconds);
    assert_true(seconds <= 10.0);
    image_free(&image);
    scene_free(&scene);
    remove_temporary_folder(dir);
}

/* ---- The path tracer's hierarchy ------------------------------------------------------------ */

/* The path tracer's nearest hit (pt_sphere_hit, t > PT_T_MIN) through its hierarchy is its loop's
 * over every sphere, at every scale, on the same kinds of rays as the main track's test. */
static void the_path_tracers_hierarchy_finds_what_its_loop_finds(void **state)
{
    (void)state;
    long long rays = 0, hits = 0, rounded_hits = 0;
    for (size_t c = 0; c < sizeof scales / sizeof *scales; ++c) {
        rng_state = 0x5851F42D4C957F2DULL + c;
        int count = scales[c].count;
        struct spec_sphere *drawn = random_spheres(count, scales[c].extent, scales[c].r_lo, scales[c].r_hi);
        struct pt_sphere *spheres = malloc((size_t)count * sizeof *spheres);
        assert_non_null(spheres);
        for (int k = 0; k < count; ++k)
            spheres[k] = (struct pt_sphere){drawn[k].centre, drawn[k].radius};
        struct bvh bvh;
        assert_int_equal(pt_bvh_build(spheres, count, &bvh), 0);
        assert_well_formed(&bvh, drawn, count);
        struct pt_world in_order = {0};
        in_order.spheres = spheres;
        in_order.sphere_count = count;
        struct pt_world in_tree = in_order;
        in_tree.bvh = bvh_view(&bvh);
        for (int r = 0; r < 20000; ++r) {
            struct ray_case ray = random_ray(drawn, count, scales[c].extent);
            /* The path tracer's rays are unit (spec_norm) on every segment but the camera's
             * before normalising; test both. */
            if (r % 2)
                ray.direction = spec_norm(ray.direction);
            float t_loop, t_tree;
            int by_loop = pt_closest_hit_in_order(&in_order, ray.origin, ray.direction, &t_loop);
            int by_tree = pt_closest_hit(&in_tree, ray.origin, ray.direction, &t_tree);
            if (by_loop != by_tree || memcmp(&t_loop, &t_tree, sizeof t_loop) != 0)
                fail_msg("scale %zu, ray %d: the loop hits sphere %d at t = %.9g, the hierarchy %d at %.9g",
                         c, r, by_loop, (double)t_loop, by_tree, (double)t_tree);
            ++rays;
            hits += by_loop >= 0;
            if (by_loop >= 0) {
                const struct pt_sphere *s = &spheres[by_loop];
                struct spec_vec3 oc = spec_sub(s->centre, ray.origin);
                double dd = spec_dot(ray.direction, ray.direction), along = spec_dot(oc, ray.direction);
                double miss2 = spec_dot(oc, oc) - along * along / dd;
                rounded_hits += miss2 > (double)s->radius * s->radius * 1.01;
            }
        }
        bvh_free(&bvh);
        free(spheres);
        free(drawn);
    }
    print_message("# path tracer: %lld rays, %lld nearest hits (%lld found by rounding), the same "
                  "both ways\n", rays, hits, rounded_hits);
    assert_true(hits > rays / 4 && rounded_hits > 100);
}

/* The path-tracing reference through its hierarchy (pt_reference_render builds one above
 * PT_BVH_FROM spheres) adds the sums and counts the rays that the loop over every sphere does,
 * on a generated scene with every material. */
static void the_path_tracing_reference_sums_the_same_both_ways(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    struct command_result *r = run_shell("python3 scenes/generate-random.py 1497 --path-tracing "
                                         "--size 40x30 --samples 2 > '%s/pt.scene'", dir);
    if (r->exit_code != 0) {
        remove_temporary_folder(dir);
        print_message("skipped: python3 could not run scenes/generate-random.py\n");
        skip();
    }
    char path[512], error[512];
    snprintf(path, sizeof path, "%s/pt.scene", dir);
    struct pt_scene scene;
    int loaded = pt_scene_load(path, &scene, error, sizeof error);
    if (loaded)
        print_message("# %s\n", error);
    assert_int_equal(loaded, 0);
    assert_true(scene.sphere_count == 1500 && scene.sphere_count > PT_BVH_FROM);
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    size_t channels = (size_t)world.width * world.height * 3;
    unsigned long long *through_tree = calloc(channels, sizeof *through_tree);
    unsigned long long *by_loop = calloc(channels, sizeof *by_loop);
    assert_true(through_tree && by_loop);
    unsigned long long tree_rays = pt_reference_render(&world, PT_ESTIMATOR_PATH, scene.samples, 2, through_tree);
    unsigned long long loop_rays = 0;
    for (int j = 0; j < world.height; ++j)
        for (int i = 0; i < world.width; ++i)
            for (int s = 0; s < scene.samples; ++s) {
                int rays;
                struct spec_vec3 c = pt_trace_sample(&world, i, j, (unsigned)s, &rays);
                unsigned long long *sum = by_loop + ((size_t)j * world.width + i) * 3;
                sum[0] += pt_fixed(c.x);
                sum[1] += pt_fixed(c.y);
                sum[2] += pt_fixed(c.z);
                loop_rays += (unsigned long long)rays;
            }
    print_message("# 1,500 path-tracing spheres at 40x30, 2 samples: %llu rays both ways\n", loop_rays);
    assert_true(tree_rays == loop_rays && loop_rays > 2400);
    assert_memory_equal(through_tree, by_loop, channels * sizeof *by_loop);
    /* The reference walks the tree its world carries: the same sums through one built here, and
     * other sums through one whose root box lies far away (every ray misses it), so the equality
     * above is the tree's and not a loop's. */
    struct bvh bvh;
    assert_int_equal(pt_bvh_build(world.spheres, world.sphere_count, &bvh), 0);
    world.bvh = bvh_view(&bvh);
    unsigned long long *given = calloc(channels, sizeof *given);
    assert_non_null(given);
    assert_true(pt_reference_render(&world, PT_ESTIMATOR_PATH, scene.samples, 2, given) == loop_rays);
    assert_memory_equal(given, by_loop, channels * sizeof *by_loop);
    bvh.nodes[0].lo = bvh.nodes[0].hi = spec_v3(1e6f, 1e6f, 1e6f);
    memset(given, 0, channels * sizeof *given);
    pt_reference_render(&world, PT_ESTIMATOR_PATH, scene.samples, 2, given);
    assert_true(memcmp(given, by_loop, channels * sizeof *by_loop) != 0);
    free(given);
    bvh_free(&bvh);
    free(through_tree);
    free(by_loop);
    pt_scene_free(&scene);
    remove_temporary_folder(dir);
}

/* The tie rule, where a tree meets spheres out of file order: two coincident spheres, the second
 * met first (reversed in one leaf, and in two leaves with the later sphere's leaf walked first);
 * the first in file order must win, in both tracks' walks. */
static void a_tie_goes_to_the_first_sphere_in_file_order(void **state)
{
    (void)state;
    struct spec_vec3 origin = spec_v3(0, 0, 0), down_z = spec_v3(0, 0, -1);
    struct spec_bvh_node one_leaf[1] = {{{-1, -1, -6}, {1, 1, -4}, 0, 2}};
    struct spec_bvh_node two_leaves[3] = {{{-1, -1, -6}, {1, 1, -4}, 1, 0},
                                          {{-1, -1, -6}, {1, 1, -4}, 0, 1},
                                          {{-1, -1, -6}, {1, 1, -4}, 1, 1}};
    int reversed[2] = {1, 0};
    const struct spec_bvh trees[2] = {{one_leaf, 1, reversed}, {two_leaves, 3, reversed}};
    struct pt_sphere pt_spheres[2] = {{{0, 0, -5}, 1}, {{0, 0, -5}, 1}};
    struct spec_sphere spheres[2] = {{{0, 0, -5}, 1, {1, 1, 1}}, {{0, 0, -5}, 1, {1, 1, 1}}};
    struct spec_world world = {spheres, 2, {0, 0, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0.1f, 0.7f, 0.7f};
    for (int k = 0; k < 2; ++k) {
        struct pt_world w = {0};
        w.spheres = pt_spheres;
        w.sphere_count = 2;
        w.bvh = trees[k];
        float t;
        assert_int_equal(pt_closest_hit_in_tree(&w, origin, down_z, &t), 0);
        assert_true(t == 4.0f);
        assert_int_equal(spec_bvh_closest_hit(&world, &trees[k], origin, down_z, &t), 0);
        assert_true(t == 4.0f);
    }
}

/* walk-work's scenes: one sphere in a 16x16 frame, and two clusters of four spheres, one behind
 * the other along -z, in a 4x4 frame (pixel (1, 1)'s ray runs along -z through x = y = 0). Each
 * written into DIR; the path is returned in SCENE. */
static const char *const walk_work_setting =
    "camera 0 0 1\nbackground 0 0 0\nlight 1 3 1\nlight_colour 1 1 1\n"
    "ambient 0.1\ndiffuse 0.7\nspecular 0.7\n";

static void write_one_sphere_scene(const char *dir, char *scene, size_t size)
{
    char text[1024];
    snprintf(scene, size, "%s/one.scene", dir);
    snprintf(text, sizeof text, "size 16 16\n%ssphere 1 0 0 -3 1 0 0\n", walk_work_setting);
    test_write_file(scene, text);
}

static void write_two_clusters_scene(const char *dir, char *scene, size_t size)
{
    char text[1024];
    snprintf(scene, size, "%s/two.scene", dir);
    int length = snprintf(text, sizeof text, "size 4 4\n%s", walk_work_setting);
    for (int z = -30; z <= -3; z += 27)
        length += snprintf(text + length, sizeof text - (size_t)length,
                           "sphere 0.2 0 0 %d 1 0 0\nsphere 0.2 1 0 %d 1 0 0\n"
                           "sphere 0.2 -1 0 %d 1 0 0\nsphere 0.2 0 1 %d 1 0 0\n", z, z, z, z);
    test_write_file(scene, text);
}

/* tools/walk-work counts what an exact walk tests: in a scene of one sphere the tree is one leaf,
 * so every ray tests one box (the root) and at most one sphere; in two clusters of four spheres,
 * one behind the other, the ray through the middle tests the root's and both leaves' boxes and
 * only the near leaf's spheres (the far leaf, walked second, starts past the hit); on
 * quick.scene its answers are the reference walk's; bad options get one line and exit 2. */
static void walk_work_counts_the_boxes_and_spheres_a_ray_tests(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char scene[128];
    write_one_sphere_scene(dir, scene, sizeof scene);
    struct command_result *r =
        run_shell("%s/walk-work --scene %s --step 1", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "256 pixels traced"));
    assert_non_null(strstr(r->out, "every answer the reference's"));
    const char *kinds[] = {"\nprimary ", "\nshadow ", "\nreflection "};
    for (int k = 0; k < 3; ++k) {
        const char *row = strstr(r->out, kinds[k]);
        assert_non_null(row);
        double rays, boxes, spheres;
        assert_int_equal(sscanf(row + strlen(kinds[k]), "%lf %lf %lf", &rays, &boxes, &spheres), 3);
        assert_true(rays > 0.0);
        assert_true(boxes == 1.0);
        assert_true(spheres > 0.0 && spheres <= 1.0);
    }

    /* Size 4x4, step 3: only pixel (1, 1), whose ray runs along -z through x = y = 0. */
    write_two_clusters_scene(dir, scene, sizeof scene);
    r = run_shell("%s/walk-work --scene %s --step 3", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "1 pixels traced"));
    assert_non_null(strstr(r->out, "tree of 3 nodes"));
    const char *primary = strstr(r->out, "\nprimary ");
    assert_non_null(primary);
    double rays, boxes, spheres;
    assert_int_equal(sscanf(primary + strlen("\nprimary "), "%lf %lf %lf", &rays, &boxes, &spheres),
                     3);
    assert_true(rays == 1.0 && boxes == 3.0 && spheres == 4.0);
    /* The last column, the nodes a ray visits: the root and the near leaf one at a time; walked
     * 4 wide, the root alone (its leaves' spheres are tested where it stands), the same tests. */
    double operations, nodes;
    assert_int_equal(sscanf(primary + strlen("\nprimary "), "%lf %lf %lf %lf %lf", &rays, &boxes,
                            &spheres, &operations, &nodes), 5);
    assert_true(nodes == 2.0);
    r = run_shell("%s/walk-work --scene %s --step 3 --wide 4", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "walked 4 wide), every answer the reference's"));
    primary = strstr(r->out, "\nprimary ");
    assert_non_null(primary);
    assert_int_equal(sscanf(primary + strlen("\nprimary "), "%lf %lf %lf %lf %lf", &rays, &boxes,
                            &spheres, &operations, &nodes), 5);
    assert_true(rays == 1.0 && boxes == 3.0 && spheres == 4.0 && nodes == 1.0);
    remove_temporary_folder(dir);

    r = run_shell("%s/walk-work --scene scenes/quick.scene --size 64x64 --step 2",
                  test_build_dir());
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "1024 pixels traced"));
    assert_non_null(strstr(r->out, "every answer the reference's"));
    assert_non_null(strstr(r->out, "ms with every lane busy every cycle"));
    for (int width = 2; width <= 8; width += 3) {
        r = run_shell("%s/walk-work --scene scenes/quick.scene --size 64x64 --step 2 --wide %d",
                      test_build_dir(), width);
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "every answer the reference's"));
    }
    /* The shadow rays trying first the sphere that blocked the left pixel's: the same answers,
     * fewer boxes a shadow ray on quick.scene, whose spheres shade the floor in patches. */
    double shadow_boxes[2];
    for (int first = 0; first < 2; ++first) {
        r = run_shell("%s/walk-work --scene scenes/quick.scene --size 64x64 --step 2%s", test_build_dir(),
                      first ? " --neighbour-blocker" : "");
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "every answer the reference's"));
        const char *shadow = strstr(r->out, "\nshadow ");
        assert_non_null(shadow);
        double shadow_rays;
        assert_int_equal(sscanf(shadow + strlen("\nshadow "), "%lf %lf", &shadow_rays, &shadow_boxes[first]),
                         2);
    }
    assert_true(shadow_boxes[1] < shadow_boxes[0]);
    /* --lanes: a warp's steps kind by kind are at least those with a pixel's walks in one loop,
     * which are at least the lanes' steps over 32 (every lane always walking). */
    r = run_shell("%s/walk-work --scene scenes/quick.scene --size 64x64 --step 2 --lanes",
                  test_build_dir());
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "lanes: 64 tiles of 8x4 pixels"));
    const char *warp = strstr(r->out, "a warp's steps, a tile: ");
    assert_non_null(warp);
    double kind_by_kind, kind_busy, one_loop, one_busy, always, lane_steps;
    assert_int_equal(sscanf(warp, "a warp's steps, a tile: %lf kind by kind, each as long as its "
                                  "longest walk (%lf%% of lanes busy); %lf with a pixel's walks in "
                                  "one loop (%lf%%); %lf with every lane always walking (the "
                                  "lanes' %lf",
                            &kind_by_kind, &kind_busy, &one_loop, &one_busy, &always, &lane_steps),
                     6);
    assert_true(kind_by_kind >= one_loop && one_loop >= always && always > 0.0);
    assert_true(kind_busy <= one_busy && one_busy <= 100.0);
    /* Both printed to a tenth: always, rounded, times 32 is within 32 x 0.05 of the sum. */
    assert_true(always * 32.0 > lane_steps - 1.7 && always * 32.0 < lane_steps + 1.7);
    r = run_shell("%s/walk-work --scene scenes/quick.scene --wide 9", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "walk-work: error: --wide needs a valid value (see --help)\n");

    r = run_shell("%s/walk-work --scene scenes/quick.scene --step 0", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "walk-work: error: --step needs a valid value (see --help)\n");
    r = run_shell("%s/walk-work --scene scenes/quick.scene --size 2x2 --step 4", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "walk-work: error: --step 4 leaves no pixel of a 2x2 frame (at "
                                "most 3)\n");
    r = run_shell("%s/walk-work --scene scenes/quick.scene --size 1x1", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "walk-work: error: --size: image size 1x1 is too small"));
    r = run_shell("%s/walk-work --scene scenes/quick.scene --bogus", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, "walk-work: error: unknown option --bogus (see --help)\n");
    r = run_shell("%s/walk-work --scene /nonexistent.scene", test_build_dir());
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "walk-work: error: "));
    const char *end_of_line = strchr(r->err, '\n');
    assert_non_null(end_of_line);
    assert_null(strchr(end_of_line + 1, '\n'));
    assert_string_equal(r->out, "");
}

/* walk-work --packets walks a tile's rays from the camera as one packet (side stage 30a) and
 * holds every answer to the ray's own walk. One sphere: the tree is one leaf, and the tile's 20
 * rays that enter it are one step of the packet; at --step 8 four tiles, each its own count of
 * the nodes any ray visits. Two clusters: the one ray that enters the root sends the packet to
 * the near leaf, then to the far one, whose spheres the packet tests though the ray's own walk
 * skipped that leaf past its hit (the warp's stack holds no entry distances): 3 steps against 2
 * nodes, 8 sphere tests against 4. Four spheres near and eight far, in either file order: the
 * packet goes first where most of its rays go first, 3 steps and no sphere past the hits. */
static void walk_work_packets_walk_a_tile_as_one(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    char scene[128];
    write_one_sphere_scene(dir, scene, sizeof scene);
    struct command_result *r =
        run_shell("%s/walk-work --scene %s --step 16 --packets", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, " 1 tiles (32 rays), every answer its ray's own walk's\n"));
    assert_non_null(strstr(r->out, ": 0.6 nodes a ray, the most of a ray 1.0, 1.0 nodes of any ray "
                                   "(20.0 summed)\n"));
    assert_non_null(strstr(r->out, "packet: 1.0 steps (1.00x the nodes of any ray, 1.00x the most "
                                   "of a ray), 20.0 rays a step\n"));
    assert_non_null(strstr(r->out, ": boxes 32.0 one at a time, 32.0 as a packet (1.00x)"));
    r = run_shell("%s/walk-work --scene %s --step 8 --packets", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, " 4 tiles (128 rays)"));
    assert_non_null(strstr(r->out, ", 1.0 nodes of any ray (13.8 summed)\n"));

    write_two_clusters_scene(dir, scene, sizeof scene);
    r = run_shell("%s/walk-work --scene %s --step 3 --packets", test_build_dir(), scene);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, " 1 tiles (16 rays), every answer its ray's own walk's\n"));
    assert_non_null(strstr(r->out, ", the most of a ray 2.0, 2.0 nodes of any ray (2.0 summed)\n"));
    assert_non_null(strstr(r->out, "packet: 3.0 steps"));
    assert_non_null(strstr(r->out, "; spheres 4.0, 8.0 (2.00x)\n"));

    for (int far_first = 0; far_first <= 1; ++far_first) {
        char text[2048];
        const char *const near = "sphere 0.2 0 0 -3 1 0 0\nsphere 0.2 1 0 -3 1 0 0\n"
                                 "sphere 0.2 -1 0 -3 1 0 0\nsphere 0.2 0 1 -3 1 0 0\n";
        const char *const far = "sphere 0.2 1 0 -30 1 0 0\nsphere 0.2 -1 0 -30 1 0 0\n"
                                "sphere 0.2 0 1 -30 1 0 0\nsphere 0.2 0 -1 -30 1 0 0\n"
                                "sphere 0.2 2 0 -30 1 0 0\nsphere 0.2 -2 0 -30 1 0 0\n"
                                "sphere 0.2 0 2 -30 1 0 0\nsphere 0.2 0 -2 -30 1 0 0\n";
        snprintf(scene, sizeof scene, "%s/near-and-far.scene", dir);
        snprintf(text, sizeof text, "size 4 4\n%s%s%s", walk_work_setting,
                 far_first ? far : near, far_first ? near : far);
        test_write_file(scene, text);
        r = run_shell("%s/walk-work --scene %s --step 3 --packets", test_build_dir(), scene);
        assert_int_equal(r->exit_code, 0);
        assert_non_null(strstr(r->out, "packet: 3.0 steps"));
        assert_non_null(strstr(r->out, "; spheres 4.0, 4.0 (1.00x)\n"));
    }
    remove_temporary_folder(dir);
}

/* walk-work --half-boxes rounds the tree's widened boxes outward to halves (stage 31): looser
 * boxes, the same answers. Two leaves of four tiny spheres 1 apart along the ray (z = 2995.5 and
 * 2994.5, seen from z = 3001), where a half's spacing is 2: in floats the far leaf starts past the
 * hit and is skipped (4 spheres tested), in halves both leaves' boxes become [2994, 2996] and
 * the far one is entered before the hit (8). Moved past the halves' range (z = 69995.5 and
 * 69994.5, the camera at 70001), every box is [65504, infinity) in z: still every answer the
 * reference's. */
static void walk_work_half_boxes_loosen_the_boxes_not_the_answers(void **state)
{
    (void)state;
    char *dir = make_temporary_folder();
    for (int far = 0; far <= 1; ++far) {
        const int offset = far ? 67000 : 0;
        char scene[128], text[2048];
        snprintf(scene, sizeof scene, "%s/halves-%d.scene", dir, far);
        int length = snprintf(text, sizeof text,
                              "size 4 4\ncamera 0 0 %d\nbackground 0 0 0\nlight 1 3 %d\n"
                              "light_colour 1 1 1\nambient 0.1\ndiffuse 0.7\nspecular 0.7\n",
                              3001 + offset, 3001 + offset);
        for (int leaf = 0; leaf < 2; ++leaf) {
            const double z = 2995.5 - leaf + offset;
            length += snprintf(text + length, sizeof text - (size_t)length,
                               "sphere 0.002 0 0 %.1f 1 0 0\nsphere 0.002 0.01 0 %.1f 1 0 0\n"
                               "sphere 0.002 -0.01 0 %.1f 1 0 0\nsphere 0.002 0 0.01 %.1f 1 0 0\n",
                               z, z, z, z);
        }
        test_write_file(scene, text);
        for (int halves = 0; halves <= 1; ++halves) {
            struct command_result *r = run_shell("%s/walk-work --scene %s --step 3%s",
                                                 test_build_dir(), scene,
                                                 halves ? " --half-boxes" : "");
            assert_int_equal(r->exit_code, 0);
            assert_non_null(strstr(r->out, halves ? "(leaves of at most 4 spheres, boxes rounded "
                                                    "outward to halves), every answer the "
                                                    "reference's\n"
                                                  : "(leaves of at most 4 spheres), every answer "
                                                    "the reference's\n"));
            const char *primary = strstr(r->out, "\nprimary ");
            assert_non_null(primary);
            double rays, boxes, spheres;
            assert_int_equal(sscanf(primary + strlen("\nprimary "), "%lf %lf %lf", &rays, &boxes,
                                    &spheres),
                             3);
            assert_true(rays == 1.0 && boxes == 3.0);
            assert_true(spheres == (halves ? 8.0 : 4.0));
        }
    }
    remove_temporary_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_hierarchy_finds_what_the_loops_find),
        cmocka_unit_test(the_cone_test_finds_what_the_loops_find),
        cmocka_unit_test(coincident_spheres_keep_the_tree_shallow),
        cmocka_unit_test(the_cpu_reference_renders_the_same_image_both_ways),
        cmocka_unit_test(a_hundred_thousand_spheres_in_seconds),
        cmocka_unit_test(the_path_tracers_hierarchy_finds_what_its_loop_finds),
        cmocka_unit_test(the_path_tracing_reference_sums_the_same_both_ways),
        cmocka_unit_test(a_tie_goes_to_the_first_sphere_in_file_order),
        cmocka_unit_test(walk_work_counts_the_boxes_and_spheres_a_ray_tests),
        cmocka_unit_test(walk_work_packets_walk_a_tile_as_one),
        cmocka_unit_test(walk_work_half_boxes_loosen_the_boxes_not_the_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
