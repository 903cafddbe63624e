/*
 * The path tracer's arithmetic (common/pathtrace/SPEC.md), once: the random numbers, the camera,
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

#include "spec_trace.h" /* struct spec_vec3 and its operations */

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

/* The ray o + t d hit `sphere` (made of `material`) at t, during segment `segment` of the path
 * of sample `sample` of pixel `pixel`: what happens next, written to *out. */
PT_FN void pt_scatter_hit(struct pt_material material, struct pt_sphere sphere,
                          struct spec_vec3 origin, struct spec_vec3 direction, float t,
                          unsigned pixel, unsigned sample, int segment, struct pt_scatter *out)
{
    unsigned event = (unsigned)segment + 1u;
    struct spec_vec3 point = spec_add(origin, spec_scale(t, direction));
    struct spec_vec3 outward = spec_sub(point, sphere.centre);
    struct spec_vec3 normal = spec_v3(outward.x / sphere.radius, outward.y / sphere.radius,
                                      outward.z / sphere.radius);
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
    struct spec_vec3 camera, sky;
    int width, height, max_depth;
};

/* The closest sphere along o + t d (ties to the first in file order), or -1; *t its distance. */
PT_FN int pt_closest_hit(const struct pt_world *world, struct spec_vec3 origin,
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

/* One sample with the given estimator (enum pt_estimator); *rays counts every ray traced. */
PT_FN struct spec_vec3 pt_trace_sample_with(const struct pt_world *world, int estimator, int i,
                                            int j, unsigned sample, int *rays)
{
    (void)estimator;
    return pt_trace_sample(world, i, j, sample, rays);
}

#ifdef __cplusplus
}
#endif

#endif
