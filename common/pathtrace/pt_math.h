/*
 * The path tracer's arithmetic (SPEC-PATH-TRACING.md), once: the random numbers, the camera,
 * a ray against a sphere, what each material does with a ray, and how a sample becomes part of
 * a pixel. The CPU reference (gcc) and every stage of the path-tracing track (nvcc) call these
 * functions, so they round alike everywhere; what the stages change is where the data lives and
 * how the work is scheduled, never this file.
 *
 * Every function takes and returns values: a stage decides where spheres, materials and rays
 * are read from (global memory through a pointer, registers, constant memory), which is what
 * the track's lessons are about.
 */
#ifndef PT_MATH_H
#define PT_MATH_H

#include "raytrace/spec_trace.h" /* struct spec_vec3 and its operations */

#ifdef __CUDACC__
#define PT_FN static inline __host__ __device__
#else
#define PT_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PT_T_MIN 1e-4f          /* nearer hits are ignored */
#define PT_T_FAR 1e30f          /* "nothing hit" */
#define PT_SURFACE_OFFSET 1e-3f /* a scattered ray starts this far off the surface, on its side */
#define PT_REJECTION_TRIES 16   /* draws for a point in the unit ball before giving up */
#define PT_RADIANCE_MAX 64.0f   /* a sample's channel is clamped here before it is added */
#define PT_FIXED_ONE 65536.0f   /* a sample's channel is added as an integer, in 1/65536ths */
#define PT_PIXEL_SCALE 255.999f

enum pt_material_kind { PT_DIFFUSE, PT_MIRROR, PT_METAL, PT_GLASS, PT_LIGHT, PT_MATERIAL_KINDS };

struct pt_sphere {
    struct spec_vec3 centre;
    float radius;
};

/* colour: the albedo, or the emitted radiance of a light; parameter: metal's fuzz, glass's
 * index of refraction, else 0. */
struct pt_material {
    int kind;
    struct spec_vec3 colour;
    float parameter;
};

enum pt_event { PT_SCATTERED, PT_EMITTED, PT_ABSORBED };

/* What a sample estimates (SPEC.md section 6): the path estimator of sections 3 and 4, which
 * every stage of the track's chain keeps; or, for the many-lights lessons (seed 003),
 * next-event estimation with candidates drawn per shading point (nee) or from a pool shared by
 * a tile of pixels (light-pool). */
enum pt_estimator { PT_ESTIMATOR_PATH, PT_ESTIMATOR_NEE, PT_ESTIMATOR_LIGHT_POOL, PT_ESTIMATORS };

/* Next-event estimation (SPEC.md section 6). */
#define PT_NEE_CANDIDATES 8     /* M: light samples a shading point chooses among */
#define PT_LIGHT_POOL_SIZE 128  /* P: samples in a tile's pool, and pixels in a tile */
#define PT_PI 3.14159265f       /* the float nearest to pi */
#define PT_EVENT_CHOICES 128u   /* + e: the reservoir's numbers at the diffuse hit of event e */
#define PT_POOL_INDEX_DIM 8u    /* + c: candidate c's pool entry, in that event */
#define PT_EVENT_CANDIDATE 256u /* + 64 c + e: nee's candidate c at the hit of event e */
#define PT_EVENT_POOL 1024u     /* + j: entry j of a tile's pool */
#define PT_POOL_PIXEL 0x80000000u /* | tile: a pool's "pixel", apart from every real one */

/* A sphere whose material is `light`: the lights are these, in file order. */
struct pt_light {
    struct spec_vec3 centre;
    float radius;
    struct spec_vec3 emission;
    int sphere; /* its index among the spheres, which a shadow ray must hit */
};

/* A point drawn on a light for next-event estimation: which light, where, which way its
 * surface faces, what it emits, and 1 / the density it was drawn with (per unit area).
 * light -1: no sample (the unit-ball rejection gave up). */
struct pt_light_sample {
    int light;
    int sphere;
    struct spec_vec3 point, normal, emission;
    float inverse_pdf;
};

/* What a hit does to a path: a new ray and the factor its light is multiplied by, or an end
 * with light (a lamp) or without (absorbed). */
struct pt_scatter {
    int event;
    struct spec_vec3 origin, direction;
    struct spec_vec3 attenuation; /* PT_SCATTERED */
    struct spec_vec3 emitted;     /* PT_EMITTED */
};

/* ---- Random numbers: a hash of the sample's coordinates, no state ------------------------- */

/* "lowbias32" (C. Wellons' hash-prospector): a 32-bit integer permutation. */
PT_FN unsigned pt_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* A number in [0, 1) for one dimension of one event of one sample of one pixel. event 0 is the
 * camera, event k + 1 the scattering after the path's segment k; dim < 256. The top 24 bits of
 * the hash, times 2^-24: exact, so the CPU and the GPU get the same float. */
PT_FN float pt_random(unsigned pixel, unsigned sample, unsigned event, unsigned dim)
{
    unsigned h = pt_hash(pixel ^ 0x9e3779b9u);
    h = pt_hash(h ^ sample);
    h = pt_hash(h ^ (event * 256u + dim));
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* ---- Camera ------------------------------------------------------------------------------- */

/* The primary ray of sample `sample` of pixel (i, j): SPEC.md's pinhole camera with the pixel's
 * point jittered by two random numbers, and a unit direction. */
PT_FN void pt_camera_ray(struct spec_vec3 camera, int width, int height, int i, int j,
                         unsigned sample, struct spec_vec3 *origin, struct spec_vec3 *direction)
{
    unsigned pixel = (unsigned)j * (unsigned)width + (unsigned)i;
    float u = pt_random(pixel, sample, 0, 0);
    float v = pt_random(pixel, sample, 0, 1);
    float px = 2.0f * ((float)i + u) / (float)(width - 1) - 1.0f;
    float py = 1.0f - 2.0f * ((float)j + v) / (float)(height - 1);
    *origin = camera;
    *direction = spec_norm(spec_sub(spec_v3(px, py, -1.0f), camera));
}

/* ---- A ray against a sphere ---------------------------------------------------------------- */

/* The nearest t > PT_T_MIN where o + t d meets the sphere, or PT_T_FAR. */
PT_FN float pt_sphere_hit(struct pt_sphere sphere, struct spec_vec3 origin,
                          struct spec_vec3 direction)
{
    struct spec_vec3 oc = spec_sub(origin, sphere.centre);
    float a = spec_dot(direction, direction);
    float half_b = spec_dot(oc, direction);
    float k = spec_dot(oc, oc) - sphere.radius * sphere.radius;
    float disc = half_b * half_b - a * k;
    if (disc < 0.0f)
        return PT_T_FAR;
    float root = sqrtf(disc);
    float t = (-half_b - root) / a;
    if (t > PT_T_MIN)
        return t;
    t = (-half_b + root) / a;
    return t > PT_T_MIN ? t : PT_T_FAR;
}

/* ---- Materials ---------------------------------------------------------------------------- */

/* A point in the unit ball by rejection from the cube [-1, 1)^3 (the origin after
 * PT_REJECTION_TRIES misses). Rejection, not angles: no sinf/cosf, whose last bit differs
 * between the CPU's libm and the GPU. */
PT_FN struct spec_vec3 pt_in_unit_ball(unsigned pixel, unsigned sample, unsigned event)
{
    for (unsigned try_ = 0; try_ < PT_REJECTION_TRIES; ++try_) {
        struct spec_vec3 p = spec_v3(2.0f * pt_random(pixel, sample, event, 1 + 3 * try_) - 1.0f,
                                     2.0f * pt_random(pixel, sample, event, 2 + 3 * try_) - 1.0f,
                                     2.0f * pt_random(pixel, sample, event, 3 + 3 * try_) - 1.0f);
        if (spec_dot(p, p) < 1.0f)
            return p;
    }
    return spec_v3(0.0f, 0.0f, 0.0f);
}

PT_FN struct spec_vec3 pt_reflect(struct spec_vec3 d, struct spec_vec3 n)
{
    return spec_sub(d, spec_scale(2.0f * spec_dot(d, n), n));
}

/* Where o + t d meets `sphere` at t, and the outward unit normal there (divided by the radius,
 * not normalised: SPEC.md section 3). */
PT_FN void pt_hit_surface(struct pt_sphere sphere, struct spec_vec3 origin,
                          struct spec_vec3 direction, float t, struct spec_vec3 *point,
                          struct spec_vec3 *normal)
{
    *point = spec_add(origin, spec_scale(t, direction));
    struct spec_vec3 outward = spec_sub(*point, sphere.centre);
    *normal = spec_v3(outward.x / sphere.radius, outward.y / sphere.radius,
                      outward.z / sphere.radius);
}

/* The ray o + t d hit `sphere` (made of `material`) at t, during segment `segment` of the path
 * of sample `sample` of pixel `pixel`: what happens next, written to *out. */
PT_FN void pt_scatter_hit(struct pt_material material, struct pt_sphere sphere,
                          struct spec_vec3 origin, struct spec_vec3 direction, float t,
                          unsigned pixel, unsigned sample, int segment, struct pt_scatter *out)
{
    unsigned event = (unsigned)segment + 1u;
    struct spec_vec3 point, normal;
    pt_hit_surface(sphere, origin, direction, t, &point, &normal);
    struct spec_vec3 next;
    out->attenuation = material.colour;
    out->emitted = spec_v3(0.0f, 0.0f, 0.0f);
    switch (material.kind) {
    case PT_LIGHT:
        out->event = PT_EMITTED;
        out->emitted = material.colour;
        return;
    case PT_DIFFUSE: {
        next = spec_add(normal, pt_in_unit_ball(pixel, sample, event));
        next = spec_dot(next, next) < 1e-12f ? normal : spec_norm(next);
        break;
    }
    case PT_MIRROR:
        next = pt_reflect(direction, normal);
        break;
    case PT_METAL: {
        struct spec_vec3 fuzz = spec_scale(material.parameter, pt_in_unit_ball(pixel, sample, event));
        next = spec_add(spec_norm(pt_reflect(direction, normal)), fuzz);
        if (!(spec_dot(next, normal) > 0.0f)) {
            out->event = PT_ABSORBED;
            return;
        }
        next = spec_norm(next);
        break;
    }
    default: { /* PT_GLASS */
        float ior = material.parameter;
        int entering = spec_dot(direction, normal) < 0.0f;
        struct spec_vec3 facing = entering ? normal : spec_scale(-1.0f, normal);
        float eta = entering ? 1.0f / ior : ior;
        float cosine = -spec_dot(direction, facing);
        cosine = cosine < 1.0f ? cosine : 1.0f;
        float sine2 = 1.0f - cosine * cosine;
        float r0 = (1.0f - ior) / (1.0f + ior);
        r0 = r0 * r0;
        float x = 1.0f - cosine;
        float x2 = x * x;
        float reflectance = r0 + (1.0f - r0) * (x2 * x2 * x); /* Schlick's approximation */
        if (eta * eta * sine2 > 1.0f || pt_random(pixel, sample, event, 0) < reflectance) {
            next = pt_reflect(direction, facing);
        } else {
            struct spec_vec3 perpendicular =
                spec_scale(eta, spec_add(direction, spec_scale(cosine, facing)));
            float along = sqrtf(fabsf(1.0f - spec_dot(perpendicular, perpendicular)));
            next = spec_norm(spec_sub(perpendicular, spec_scale(along, facing)));
        }
        break;
    }
    }
    out->event = PT_SCATTERED;
    out->direction = next;
    float side = spec_dot(next, normal) > 0.0f ? PT_SURFACE_OFFSET : -PT_SURFACE_OFFSET;
    out->origin = spec_add(point, spec_scale(side, normal));
}

/* ---- From samples to pixels --------------------------------------------------------------- */

/* A sample's channel as the integer added to its pixel: clamped to [0, PT_RADIANCE_MAX], in
 * 1/65536ths, truncated. Integer sums do not depend on the order they are made in, so a stage
 * may add a pixel's samples in any order (part 2 of the track does) and keep every bit. */
PT_FN unsigned pt_fixed(float channel)
{
    if (!(channel > 0.0f))
        return 0u;
    if (channel >= PT_RADIANCE_MAX)
        return (unsigned)(PT_RADIANCE_MAX * PT_FIXED_ONE);
    return (unsigned)(channel * PT_FIXED_ONE);
}

/* A pixel's channel: the mean of its samples, clamped to 1, gamma 2 (a square root), times
 * 255.999, truncated (SPEC.md's output rule). */
PT_FN unsigned char pt_pixel_channel(unsigned long long sum, int samples)
{
    float mean = (float)((double)sum / ((double)samples * (double)PT_FIXED_ONE));
    float v = PT_PIXEL_SCALE * sqrtf(mean < 1.0f ? mean : 1.0f);
    if (!(v > 0.0f))
        return 0;
    return v >= 255.0f ? 255 : (unsigned char)v;
}

/* ---- One sample, start to end: the reference the stages' kernels are checked against ------ */

struct pt_world {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    int sphere_count;
    const struct pt_light *lights; /* the light spheres, in file order */
    int light_count;
    struct spec_vec3 camera, sky;
    int width, height, max_depth;
    /* nodes NULL: every sphere is tested, in file order (the definition). Else a hierarchy over
     * the spheres (common/pathtrace/pt_bvh.c), which finds the same sphere at the same t. */
    struct spec_bvh bvh;
};

/* The closest sphere along o + t d (ties to the first in file order), or -1; *t its distance:
 * every sphere tested in file order, the track's definition of the nearest hit. */
PT_FN int pt_closest_hit_in_order(const struct pt_world *world, struct spec_vec3 origin,
                                  struct spec_vec3 direction, float *t)
{
    int closest = -1;
    float best = PT_T_FAR;
    for (int s = 0; s < world->sphere_count; ++s) {
        float hit = pt_sphere_hit(world->spheres[s], origin, direction);
        if (hit < best) {
            best = hit;
            closest = s;
        }
    }
    *t = best;
    return closest;
}

/* pt_closest_hit_in_order's answer through world->bvh, by the main track's two rules
 * (common/raytrace/spec_bvh.h): a candidate wins on (t, index), whatever order the tree meets the
 * spheres in, and a box is skipped only when no sphere inside it can pass pt_sphere_hit's rounded
 * test before the best t so far. pt_sphere_hit's discriminant is spec_intersect's divided by 4,
 * which is exact, so the same widening (SPEC_BVH_REACH) bounds where it can report a hit, and a hit
 * it reports lies on its sphere, so inside the widened box. */
PT_FN int pt_closest_hit_in_tree(const struct pt_world *world, struct spec_vec3 origin,
                                 struct spec_vec3 direction, float *t)
{
    const struct spec_bvh *bvh = &world->bvh;
    struct spec_vec3 inverse = spec_bvh_inverse(direction);
    int closest = -1;
    float best = PT_T_FAR;
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!spec_bvh_may_hit(node, origin, inverse, best))
            continue;
        if (node->count == 0) {
            stack[top++] = node->first + 1;
            stack[top++] = node->first;
            continue;
        }
        for (int k = 0; k < node->count; ++k) {
            int s = bvh->order[node->first + k];
            float hit = pt_sphere_hit(world->spheres[s], origin, direction);
            if (hit < best || (hit == best && closest >= 0 && s < closest)) {
                best = hit;
                closest = s;
            }
        }
    }
    *t = best;
    return closest;
}

/* The closest sphere along o + t d (ties to the first in file order), or -1; *t its distance:
 * through the hierarchy when the world has one, in code that defines PT_WORLD_MAY_HAVE_A_TREE
 * before it includes this file (the CPU reference, the GPU ray counter, the tests). Elsewhere
 * (the stages' kernels, which never get a tree) the walk is not compiled in: it would cost them
 * registers and a stack frame for a branch they never take. */
PT_FN int pt_closest_hit(const struct pt_world *world, struct spec_vec3 origin,
                         struct spec_vec3 direction, float *t)
{
#ifdef PT_WORLD_MAY_HAVE_A_TREE
    if (world->bvh.nodes)
        return pt_closest_hit_in_tree(world, origin, direction, t);
#endif
    return pt_closest_hit_in_order(world, origin, direction, t);
}

/* The radiance one sample of pixel (i, j) brings back, and in *rays the rays it traced: at most
 * max_depth segments; a ray that escapes brings the sky, one that hits a light its emission,
 * each times the product of the attenuations so far (in path order); an absorbed path or one
 * still bouncing after max_depth segments brings nothing. */
PT_FN struct spec_vec3 pt_trace_sample(const struct pt_world *world, int i, int j,
                                       unsigned sample, int *rays)
{
    unsigned pixel = (unsigned)j * (unsigned)world->width + (unsigned)i;
    struct spec_vec3 origin, direction;
    pt_camera_ray(world->camera, world->width, world->height, i, j, sample, &origin, &direction);
    struct spec_vec3 throughput = spec_v3(1.0f, 1.0f, 1.0f);
    *rays = 0;
    for (int segment = 0; segment < world->max_depth; ++segment) {
        float t;
        int hit = pt_closest_hit(world, origin, direction, &t);
        ++*rays;
        if (hit < 0)
            return spec_mul(throughput, world->sky);
        struct pt_scatter scatter;
        pt_scatter_hit(world->materials[hit], world->spheres[hit], origin, direction, t, pixel,
                       sample, segment, &scatter);
        if (scatter.event == PT_EMITTED)
            return spec_mul(throughput, scatter.emitted);
        if (scatter.event == PT_ABSORBED)
            break;
        throughput = spec_mul(throughput, scatter.attenuation);
        origin = scatter.origin;
        direction = scatter.direction;
    }
    return spec_v3(0.0f, 0.0f, 0.0f);
}

/* ---- Next-event estimation: SPEC.md section 6 ------------------------------------------ */

/* Which of the light_count lights the key (pixel, sample, event) draws: uniformly. */
PT_FN int pt_light_pick(unsigned pixel, unsigned sample, unsigned event, int light_count)
{
    float u = pt_random(pixel, sample, event, 0);
    int light = (int)(u * (float)light_count);
    return light < light_count - 1 ? light : light_count - 1;
}

/* The outward unit normal of the key's point on its light: the direction of a point of the
 * unit ball (dimensions 1 to 48), so uniform over the sphere. Returns 0 (and a zero normal)
 * when the rejection gave up: no sample. */
PT_FN int pt_light_normal(unsigned pixel, unsigned sample, unsigned event,
                          struct spec_vec3 *normal)
{
    struct spec_vec3 ball = pt_in_unit_ball(pixel, sample, event);
    if (ball.x == 0.0f && ball.y == 0.0f && ball.z == 0.0f) {
        *normal = ball;
        return 0;
    }
    *normal = spec_norm(ball);
    return 1;
}

/* The sample on `light` (light number `index` of light_count) whose normal is `normal`: the
 * point and the inverse of the density it was drawn with, a light picked uniformly, then a
 * point uniformly over its area: light_count * 4 pi r^2. A stage that keeps only the index and
 * the normal rebuilds the rest here, to the same bits. */
PT_FN struct pt_light_sample pt_light_sample_at(struct pt_light light, int index,
                                                struct spec_vec3 normal, int light_count)
{
    struct pt_light_sample s;
    s.light = index;
    s.sphere = light.sphere;
    s.normal = normal;
    s.point = spec_add(light.centre, spec_v3(light.radius * normal.x, light.radius * normal.y,
                                             light.radius * normal.z));
    s.emission = light.emission;
    s.inverse_pdf = (float)light_count * (4.0f * PT_PI * (light.radius * light.radius));
    return s;
}

/* No sample: what a key whose unit-ball rejection gave up draws. */
PT_FN struct pt_light_sample pt_light_sample_none(void)
{
    struct pt_light_sample s;
    s.light = -1;
    s.sphere = -1;
    s.point = s.normal = s.emission = spec_v3(0.0f, 0.0f, 0.0f);
    s.inverse_pdf = 0.0f;
    return s;
}

/* The sample the key draws on light number `index` (pt_light_pick of the same key), passed by
 * value: the stage decides where the lights are read from. */
PT_FN struct pt_light_sample pt_light_sample_draw(struct pt_light light, int index,
                                                  unsigned pixel, unsigned sample,
                                                  unsigned event, int light_count)
{
    struct spec_vec3 normal;
    if (!pt_light_normal(pixel, sample, event, &normal))
        return pt_light_sample_none();
    return pt_light_sample_at(light, index, normal, light_count);
}

/* The keys of the candidates. nee: candidate c at the diffuse hit of event e draws with
 * (pixel, sample, 256 + 64 c + e). light-pool: entry j of the pool of tile `tile` for frame s
 * draws with (0x80000000 | tile, s, 1024 + j); candidate c takes entry
 * min((int)(u * P), P - 1), u number 8 + c of event 128 + e. */
PT_FN unsigned pt_candidate_event(int candidate, unsigned event)
{
    return PT_EVENT_CANDIDATE + 64u * (unsigned)candidate + event;
}

PT_FN unsigned pt_pool_pixel(unsigned tile)
{
    return PT_POOL_PIXEL | tile;
}

PT_FN unsigned pt_pool_event(int entry)
{
    return PT_EVENT_POOL + (unsigned)entry;
}

PT_FN int pt_pool_entry(unsigned pixel, unsigned sample, unsigned event, int candidate)
{
    float u = pt_random(pixel, sample, PT_EVENT_CHOICES + event,
                        PT_POOL_INDEX_DIM + (unsigned)candidate);
    int entry = (int)(u * (float)PT_LIGHT_POOL_SIZE);
    return entry < PT_LIGHT_POOL_SIZE - 1 ? entry : PT_LIGHT_POOL_SIZE - 1;
}

/* The number that decides whether the reservoir keeps candidate c. */
PT_FN float pt_reservoir_choice(unsigned pixel, unsigned sample, unsigned event, int candidate)
{
    return pt_random(pixel, sample, PT_EVENT_CHOICES + event, (unsigned)candidate);
}

/* Where next-event estimation happens: a diffuse hit's point, normal and albedo. */
struct pt_shading_point {
    struct spec_vec3 point, normal, albedo;
};

/* Resampled importance sampling over the candidates, one at a time: the sum of their weights
 * and what the shadow ray and the estimate need of the one kept. */
struct pt_reservoir {
    float weight_sum;
    int sphere;              /* the kept candidate's light sphere; -1: none kept */
    struct spec_vec3 point;  /* the kept candidate's point on it */
    struct spec_vec3 colour; /* albedo times emission */
    float geometry;          /* cos_x^3 cos_y / d^2 */
    float target;            /* (colour.x + colour.y + colour.z) * geometry */
};

PT_FN void pt_reservoir_start(struct pt_reservoir *r)
{
    r->weight_sum = 0.0f;
    r->sphere = -1;
    r->point = r->colour = spec_v3(0.0f, 0.0f, 0.0f);
    r->geometry = r->target = 0.0f;
}

/* Offers sample s to the reservoir of shading point `at`; `choice` is the candidate's
 * pt_reservoir_choice. The track's diffuse material is f = albedo 2 cos^2 / pi (the density of
 * its scattering, N + a point of the unit ball, is 2 cos^3 / pi), so what the light brings
 * unoccluded is (2 / pi) colour G, and the target keeps colour.x + colour.y + colour.z times G:
 * the constant 2 / pi cancels in the choice. */
PT_FN void pt_reservoir_add(struct pt_reservoir *r, struct pt_shading_point at,
                            struct pt_light_sample s, float choice)
{
    if (s.light < 0)
        return;
    struct spec_vec3 w = spec_sub(s.point, at.point);
    float d2 = spec_dot(w, w);
    float distance = sqrtf(d2);
    float cos_x = spec_dot(at.normal, w) / distance;
    float cos_y = -spec_dot(s.normal, w) / distance;
    if (!(cos_x > 0.0f) || !(cos_y > 0.0f))
        return;
    float geometry = cos_x * cos_x * cos_x * cos_y / d2;
    struct spec_vec3 colour = spec_mul(at.albedo, s.emission);
    float target = (colour.x + colour.y + colour.z) * geometry;
    float weight = target * s.inverse_pdf;
    if (!(weight > 0.0f))
        return;
    r->weight_sum = r->weight_sum + weight;
    if (choice * r->weight_sum < weight) {
        r->sphere = s.sphere;
        r->point = s.point;
        r->colour = colour;
        r->geometry = geometry;
        r->target = target;
    }
}

/* The shadow ray to the kept candidate: from just off the surface, toward its point (not
 * normalised: the light is at t = 1). Visible when its closest hit is the kept light. */
PT_FN void pt_shadow_ray(struct pt_shading_point at, const struct pt_reservoir *r,
                         struct spec_vec3 *origin, struct spec_vec3 *direction)
{
    *origin = spec_add(at.point, spec_scale(PT_SURFACE_OFFSET, at.normal));
    *direction = spec_sub(r->point, *origin);
}

/* What a visible kept candidate brings: throughput times colour times the RIS estimate's
 * scale (2 / pi) G wsum / (M target). */
PT_FN struct spec_vec3 pt_nee_contribution(const struct pt_reservoir *r,
                                           struct spec_vec3 throughput)
{
    float scale = (2.0f / PT_PI) * r->geometry * r->weight_sum /
                  ((float)PT_NEE_CANDIDATES * r->target);
    return spec_mul(throughput, spec_scale(scale, r->colour));
}

/* Candidate c at the diffuse hit of event `event` of sample `sample` of pixel `pixel`, as the
 * CPU draws it: from the whole light list (nee), or entry j of its tile's pool, computed on
 * demand (light-pool: a pure function of tile, frame and j, which a GPU stage keeps in shared
 * memory instead). */
PT_FN struct pt_light_sample pt_candidate(const struct pt_world *world, int estimator,
                                          unsigned pixel, unsigned sample, unsigned event,
                                          int candidate)
{
    unsigned key_pixel = pixel, key_event = pt_candidate_event(candidate, event);
    if (estimator == PT_ESTIMATOR_LIGHT_POOL) {
        key_pixel = pt_pool_pixel(pixel / (unsigned)PT_LIGHT_POOL_SIZE);
        key_event = pt_pool_event(pt_pool_entry(pixel, sample, event, candidate));
    }
    int light = pt_light_pick(key_pixel, sample, key_event, world->light_count);
    return pt_light_sample_draw(world->lights[light], light, key_pixel, sample, key_event,
                                world->light_count);
}

/* Next-event estimation at diffuse hit `at` of event `event`: PT_NEE_CANDIDATES candidates
 * (pt_candidate) into a reservoir, one shadow ray to the kept one (counted in *rays), and what
 * it brings if nothing blocks it; zero when no candidate is kept or the ray is blocked. */
PT_FN struct spec_vec3 pt_next_event(const struct pt_world *world, int estimator, unsigned pixel,
                                     unsigned sample, unsigned event, struct pt_shading_point at,
                                     struct spec_vec3 throughput, int *rays)
{
    struct pt_reservoir reservoir;
    pt_reservoir_start(&reservoir);
    for (int c = 0; c < PT_NEE_CANDIDATES; ++c)
        pt_reservoir_add(&reservoir, at, pt_candidate(world, estimator, pixel, sample, event, c),
                         pt_reservoir_choice(pixel, sample, event, c));
    if (reservoir.sphere < 0)
        return spec_v3(0.0f, 0.0f, 0.0f);
    struct spec_vec3 shadow_origin, shadow_direction;
    float shadow_t;
    pt_shadow_ray(at, &reservoir, &shadow_origin, &shadow_direction);
    int blocker = pt_closest_hit(world, shadow_origin, shadow_direction, &shadow_t);
    ++*rays;
    if (blocker != reservoir.sphere)
        return spec_v3(0.0f, 0.0f, 0.0f);
    return pt_nee_contribution(&reservoir, throughput);
}

#ifdef __cplusplus
}
#endif

#endif
