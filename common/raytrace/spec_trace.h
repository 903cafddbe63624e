/*
 * The arithmetic of SPEC.md, once, as the reference every stage is checked against.
 *
 * Used by the CPU reference renderer (C, gcc) and by the GPU ray counter (CUDA), so the
 * functions are plain static inline C that nvcc can also compile for the device.
 * Each expression keeps SPEC.md's order of operations; the stages copy that order, which is
 * what lets every stage produce the same bits as this file (see docs/reference.md, "Same
 * picture, every stage").
 */
#ifndef SPEC_TRACE_H
#define SPEC_TRACE_H

#include <math.h>

#ifdef __CUDACC__
#define SPEC_FN static inline __host__ __device__
#else
#define SPEC_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SPEC_FAR_PLANE 100.0f
#define SPEC_SHADOW_EPSILON 1e-6f
#define SPEC_SURFACE_OFFSET 0.001f
#define SPEC_SHADOW_FACTOR 0.35f
#define SPEC_SURFACE_MIX 0.55f
#define SPEC_PIXEL_SCALE 255.999f

struct spec_vec3 {
    float x, y, z;
};

struct spec_sphere {
    struct spec_vec3 centre;
    float radius;
    struct spec_vec3 colour;
};

struct spec_world {
    const struct spec_sphere *spheres;
    int sphere_count;
    struct spec_vec3 camera;
    struct spec_vec3 background; /* 0..255, as the scene file gives it */
    struct spec_vec3 light_position;
    struct spec_vec3 light_colour;
    float ambient, diffuse, specular;
};

SPEC_FN struct spec_vec3 spec_v3(float x, float y, float z)
{
    struct spec_vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

SPEC_FN struct spec_vec3 spec_add(struct spec_vec3 a, struct spec_vec3 b)
{
    return spec_v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

SPEC_FN struct spec_vec3 spec_sub(struct spec_vec3 a, struct spec_vec3 b)
{
    return spec_v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

SPEC_FN struct spec_vec3 spec_scale(float s, struct spec_vec3 v)
{
    return spec_v3(s * v.x, s * v.y, s * v.z);
}

SPEC_FN struct spec_vec3 spec_mul(struct spec_vec3 a, struct spec_vec3 b)
{
    return spec_v3(a.x * b.x, a.y * b.y, a.z * b.z);
}

SPEC_FN float spec_dot(struct spec_vec3 a, struct spec_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* v / sqrt(v.v): three divisions, not a multiplication by a reciprocal, as SPEC.md writes it. */
SPEC_FN struct spec_vec3 spec_norm(struct spec_vec3 v)
{
    float length = sqrtf(spec_dot(v, v));
    return spec_v3(v.x / length, v.y / length, v.z / length);
}

SPEC_FN float spec_max0(float a)
{
    return a > 0.0f ? a : 0.0f;
}

SPEC_FN float spec_cap1(float a)
{
    return a < 1.0f ? a : 1.0f;
}

SPEC_FN struct spec_vec3 spec_cap(struct spec_vec3 v)
{
    return spec_v3(spec_cap1(v.x), spec_cap1(v.y), spec_cap1(v.z));
}

/* x^32 as five squarings: exact IEEE products, so every implementation rounds alike
 * (powf is not correctly rounded on every platform). */
SPEC_FN float spec_pow32(float x)
{
    float x2 = x * x;
    float x4 = x2 * x2;
    float x8 = x4 * x4;
    float x16 = x8 * x8;
    return x16 * x16;
}

/* Primary ray direction d = p - O for pixel (i, j), j counted from the top. */
SPEC_FN struct spec_vec3 spec_primary_direction(int i, int j, int width, int height,
                                                struct spec_vec3 camera)
{
    float px = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    float py = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    return spec_sub(spec_v3(px, py, -1.0f), camera);
}

/* Returns 1 and the smaller positive root in *t, or 0 for no hit. */
SPEC_FN int spec_intersect(struct spec_vec3 origin, struct spec_vec3 direction,
                           const struct spec_sphere *sphere, float *t)
{
    struct spec_vec3 oc = spec_sub(origin, sphere->centre);
    float a = spec_dot(direction, direction);
    float b = 2.0f * spec_dot(direction, oc);
    float k = spec_dot(oc, oc) - sphere->radius * sphere->radius;
    float disc = b * b - 4.0f * a * k;
    if (disc < 0.0f)
        return 0;
    float root = sqrtf(disc);
    float t0 = (-b - root) / (2.0f * a);
    float t1 = (-b + root) / (2.0f * a);
    if (t0 > 0.0f && t1 > 0.0f)
        *t = t0 < t1 ? t0 : t1;
    else if (t0 > 0.0f)
        *t = t0;
    else if (t1 > 0.0f)
        *t = t1;
    else
        return 0;
    return 1;
}

/* Index of the closest sphere with 0 <= t < 100 (first one wins a tie), or -1. */
SPEC_FN int spec_closest_hit(const struct spec_world *world, struct spec_vec3 origin,
                             struct spec_vec3 direction, float *t_hit)
{
    float closest = SPEC_FAR_PLANE;
    int hit = -1;
    for (int s = 0; s < world->sphere_count; ++s) {
        float t;
        if (spec_intersect(origin, direction, &world->spheres[s], &t) && t >= 0.0f &&
            t < closest) {
            closest = t;
            hit = s;
        }
    }
    *t_hit = closest;
    return hit;
}

SPEC_FN float spec_shadow(const struct spec_world *world, struct spec_vec3 origin,
                          struct spec_vec3 direction)
{
    for (int s = 0; s < world->sphere_count; ++s) {
        float t;
        if (spec_intersect(origin, direction, &world->spheres[s], &t) && t > SPEC_SHADOW_EPSILON)
            return SPEC_SHADOW_FACTOR;
    }
    return 1.0f;
}

/* The same answers through a hierarchy of boxes, for scenes of many spheres. */
#include "raytrace/spec_bvh.h"

/* spec_closest_hit or spec_shadow, through bvh where there is one (NULL: every sphere). */
SPEC_FN int spec_find_closest_hit(const struct spec_world *world, const struct spec_bvh *bvh,
                                  struct spec_vec3 origin, struct spec_vec3 direction, float *t)
{
    return bvh ? spec_bvh_closest_hit(world, bvh, origin, direction, t)
               : spec_closest_hit(world, origin, direction, t);
}

SPEC_FN float spec_find_shadow(const struct spec_world *world, const struct spec_bvh *bvh,
                               struct spec_vec3 origin, struct spec_vec3 direction)
{
    return bvh ? spec_bvh_shadow(world, bvh, origin, direction) : spec_shadow(world, origin, direction);
}

/* Where the primary ray from origin along direction meets sphere at t: the point, its normal,
 * the unit vector to the light, the light's direction mirrored about the normal (where the
 * reflection ray goes) and the point lifted off the surface (where the shadow and reflection
 * rays start). */
struct spec_surface {
    struct spec_vec3 point, normal, to_light, mirrored, lifted;
};

SPEC_FN struct spec_surface spec_surface_at(const struct spec_world *world,
                                            struct spec_vec3 origin, struct spec_vec3 direction,
                                            float t, const struct spec_sphere *sphere)
{
    struct spec_surface s;
    s.point = spec_add(origin, spec_scale(t, direction));
    s.normal = spec_norm(spec_sub(s.point, sphere->centre));
    s.to_light = spec_norm(spec_sub(world->light_position, s.point));
    struct spec_vec3 from_light = spec_scale(-1.0f, s.to_light);
    s.mirrored = spec_norm(
        spec_sub(from_light, spec_scale(2.0f * spec_dot(from_light, s.normal), s.normal)));
    s.lifted = spec_add(s.point, spec_scale(SPEC_SURFACE_OFFSET, s.normal));
    return s;
}

/* The shadow ray of the point where the reflection ray (from lifted along mirrored) meets other
 * at t: its origin, lifted off that surface, and its direction (to the light, shifted as the
 * origin is). */
SPEC_FN void spec_reflection_shadow_ray(const struct spec_world *world, struct spec_vec3 lifted,
                                        struct spec_vec3 mirrored, float t,
                                        const struct spec_sphere *other,
                                        struct spec_vec3 *origin, struct spec_vec3 *direction)
{
    struct spec_vec3 q = spec_add(lifted, spec_scale(t, mirrored));
    struct spec_vec3 q_normal = spec_norm(spec_sub(q, other->centre));
    *origin = spec_add(q, spec_scale(SPEC_SURFACE_OFFSET, q_normal));
    *direction =
        spec_add(spec_sub(world->light_position, q), spec_scale(SPEC_SURFACE_OFFSET, q_normal));
}

/* The colour of pixel (i, j) as the float the frame buffer holds (0..255.999), and the number
 * of rays traced for it (1 primary, +1 shadow +1 reflection on a hit, +1 shadow when the
 * reflection hits). With a hierarchy (bvh, not NULL) the hits are looked up through it, with the
 * same results. */
SPEC_FN struct spec_vec3 spec_trace_pixel(const struct spec_world *world, const struct spec_bvh *bvh,
                                          int i, int j, int width, int height, int *rays)
{
    struct spec_vec3 origin = world->camera;
    struct spec_vec3 direction = spec_primary_direction(i, j, width, height, origin);
    float t;
    int hit = spec_find_closest_hit(world, bvh, origin, direction, &t);
    *rays = 1;
    if (hit < 0)
        return world->background;

    const struct spec_sphere *sphere = &world->spheres[hit];
    struct spec_surface surface_point = spec_surface_at(world, origin, direction, t, sphere);
    struct spec_vec3 normal = surface_point.normal, to_light = surface_point.to_light;
    struct spec_vec3 mirrored = surface_point.mirrored, lifted = surface_point.lifted;
    struct spec_vec3 to_viewer = spec_norm(spec_sub(world->camera, surface_point.point));
    float shadow = spec_find_shadow(world, bvh, lifted, spec_sub(world->light_position, lifted));

    struct spec_vec3 reflected;
    float t_reflection;
    int reflection_hit = spec_find_closest_hit(world, bvh, lifted, mirrored, &t_reflection);
    *rays += 2;
    if (reflection_hit >= 0) {
        const struct spec_sphere *other = &world->spheres[reflection_hit];
        struct spec_vec3 q_lifted, q_to_light;
        spec_reflection_shadow_ray(world, lifted, mirrored, t_reflection, other, &q_lifted,
                                   &q_to_light);
        float reflection_shadow = spec_find_shadow(world, bvh, q_lifted, q_to_light);
        reflected = spec_scale(reflection_shadow, other->colour);
        *rays += 1;
    } else {
        reflected = spec_v3(world->background.x / 255.0f, world->background.y / 255.0f,
                            world->background.z / 255.0f);
    }

    float diffuse = spec_max0(spec_dot(to_light, normal));
    float specular = spec_pow32(spec_max0(spec_dot(mirrored, to_viewer)));
    struct spec_vec3 light = world->light_colour;
    struct spec_vec3 lighting =
        spec_add(spec_add(spec_scale(world->ambient, light), spec_scale(world->diffuse * diffuse, light)),
                 spec_scale(world->specular * specular, light));
    struct spec_vec3 surface =
        spec_add(spec_scale(SPEC_SURFACE_MIX, spec_sub(sphere->colour, reflected)), reflected);
    struct spec_vec3 all = spec_mul(spec_cap(lighting), spec_cap(surface));
    return spec_scale(SPEC_PIXEL_SCALE * shadow, all);
}

#ifdef __cplusplus
}
#endif

#endif
