/*
 * Stage 12b, packet culling (a side stage): each block first finds the spheres its rays can
 * possibly meet, and its rays test only those.
 *
 * Every ray so far tested every sphere, though a block of neighbouring pixels sees only a few:
 * its primary rays leave the camera inside a narrow pyramid, and the shadow and reflection rays
 * of its hit points start close together and point in nearly the same direction. Each block now
 * bounds its rays of each kind by a packet (origins inside a ball, directions inside a cone
 * around an axis), built from the block's pixel corners for primary rays and, for secondary
 * rays, by reductions over the block's hit points (warp reductions, then shared-memory atomics).
 * One warp then lists, in sphere order, the spheres that can meet some ray of the packet, and
 * every thread loops over that short list in shared memory. The test errs on the side of keeping
 * a sphere (margins far above float error, and NaN keeps everything), and the list keeps the
 * spheres' order, so every ray finds the hit it found before: work that cannot change the pixel
 * is skipped, and the image is stage 12's. The shadow ray of a reflection's hit point is not in
 * a packet (those points are scattered) and still tests every sphere.
 *
 * Kept from stage 12: the intersection solves the quadratic with half of b, and the factors 2
 * and 4 it drops are powers of two, which scale a float exactly.
 *
 * Builds on 12-lean-intersection.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "host_pages.h"
#include "stage.h"

#define FAR_PLANE 100.0f
#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b goes to stream b % STREAM_COUNT */
/* 1024 * (28 + 16 + 16) bytes: most of constant memory's 64 KiB */
#define MAX_CONSTANT_SPHERES 1024
#define CULL_ANGLE_MARGIN 2e-3f    /* radians added to a packet's cone: float error is far below */
#define CULL_DISTANCE_MARGIN 1e-3f /* relative margin on distances */
/* The widest block whose four corner rays bound its primary rays (radians, under a right angle). */
#define WIDEST_CORNER_SPREAD 1.5f
#define PI_RADIANS 3.14159274f

struct Sphere {
    float3 center;
    float radius;
    float3 color;
};

struct Light {
    float3 position;
    float3 color;
    float ambient, diffuse, specular;
};

struct Camera {
    float3 origin;
    float3 background; /* 0..255: what a ray that hits nothing sees */
};

/* ---- the vector type: CUDA's float3 (vector_types.h) and small helpers --------------------- */

__host__ __device__ inline float3 add3(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

__host__ __device__ inline float3 sub3(float3 a, float3 b)
{
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

__host__ __device__ inline float3 scale3(float s, float3 v)
{
    return make_float3(s * v.x, s * v.y, s * v.z);
}

__host__ __device__ inline float3 mul3(float3 a, float3 b)
{
    return make_float3(a.x * b.x, a.y * b.y, a.z * b.z);
}

__host__ __device__ inline float dot3(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Three divisions by the length, not a multiplication by its reciprocal: the same bits as
 * SPEC.md (docs/reference.md: same picture). */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
    return make_float3(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ inline float3 cap3(float3 v)
{
    return make_float3(fminf(v.x, 1.0f), fminf(v.y, 1.0f), fminf(v.z, 1.0f));
}

/* SPEC.md's output rule, as common/image.c applies it on the host: truncation toward zero,
 * clamped to 0..255, NaN to 0. */
__device__ inline unsigned char channel_from_float(float value)
{
    if (!(value > 0.0f)) {
        return 0;
    }
    if (value >= 255.0f) {
        return 255;
    }
    return (unsigned char)value;
}

/* size_t: three bytes per pixel pass 2^31 for images over 26754x26754. */
__device__ inline void store_pixel(unsigned char *framebuffer, int pixel, float3 colour)
{
    unsigned char *rgb = framebuffer + (size_t)3 * (size_t)pixel;
    rgb[0] = channel_from_float(colour.x);
    rgb[1] = channel_from_float(colour.y);
    rgb[2] = channel_from_float(colour.z);
}

/* ---- the scene, in constant memory --------------------------------------------------------- */

__constant__ Sphere constant_spheres[MAX_CONSTANT_SPHERES];
/* Per sphere: centre x, y, z and the radius squared. */
__constant__ float4 constant_geometry[MAX_CONSTANT_SPHERES];
/* Per sphere, for rays from the camera: oc = camera - centre, and k = oc.oc - r^2. */
__constant__ float4 constant_from_camera[MAX_CONSTANT_SPHERES];
__constant__ Light constant_light;
__constant__ Camera constant_camera;

/* ---- rays and spheres --------------------------------------------------------------------- */

/* Returns true and the nearest positive distance along the ray in *t, given oc = origin - centre,
 * k = oc.oc - r^2 and the ray's a = d.d. half_b is b / 2 and quarter_discriminant is the
 * discriminant / 4: the same roundings scaled by powers of two (see the top of this file). */
__device__ bool has_intersection(float3 oc, float k, float3 direction, float a, float *t)
{
    const float half_b = dot3(direction, oc);
    const float quarter_discriminant = half_b * half_b - a * k;
    if (quarter_discriminant < 0.0f) {
        return false;
    }
    const float root = sqrtf(quarter_discriminant);
    const float t0 = (-half_b - root) / a;
    const float t1 = (-half_b + root) / a;
    /* t0 <= t1 whenever both are numbers (root >= 0, a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    *t = t0 > 0.0f ? t0 : t1;
    return *t > 0.0f;
}

/* oc and k of a ray from any origin: one 16-byte load, three subtractions and a dot product. */
__device__ inline float3 from_sphere(float3 origin, float4 geometry, float *k)
{
    const float3 oc =
        make_float3(origin.x - geometry.x, origin.y - geometry.y, origin.z - geometry.z);
    *k = dot3(oc, oc) - geometry.w;
    return oc;
}

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. Tests the count spheres of list (ascending indices), or the first
 * count spheres when list is NULL. */
__device__ int closest_sphere(float3 origin, float3 direction, const unsigned short *list,
                              int count, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int n = 0; n < count; n++) {
        const int s = list ? list[n] : n;
        float k, t;
        const float3 oc = from_sphere(origin, constant_geometry[s], &k);
        if (has_intersection(oc, k, direction, a, &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* The same for a primary ray: its origin is the camera, whose oc and k are ready per sphere. */
__device__ int closest_sphere_from_camera(float3 direction, const unsigned short *list, int count,
                                          float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int n = 0; n < count; n++) {
        const int s = list[n];
        const float4 from_camera = constant_from_camera[s];
        const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
        float t;
        if (has_intersection(oc, from_camera.w, direction, a, &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ float shadow_factor(float3 origin, float3 direction, const unsigned short *list,
                               int count)
{
    const float a = dot3(direction, direction);
    for (int n = 0; n < count; n++) {
        const int s = list ? list[n] : n;
        float k, t;
        const float3 oc = from_sphere(origin, constant_geometry[s], &k);
        if (has_intersection(oc, k, direction, a, &t) && t > 1e-6f) {
            return 0.35f;
        }
    }
    return 1.0f;
}

/* ---- packets: a block's rays of one kind, bounded together ---------------------------------- */

/* Every origin within origin_radius of origin_centre, every direction within spread radians of
 * axis (a unit vector). */
struct Packet {
    float3 origin_centre;
    float origin_radius;
    float3 axis;
    float spread;
};

/* Whether some ray of the packet can meet the sphere. A ray from o hitting sphere (c, r) puts c
 * within r of it, so the parallel ray from origin_centre passes within r + origin_radius of c:
 * angle(c - origin_centre, d) <= asin((r + origin_radius) / |c - origin_centre|), and by the
 * triangle inequality on angles, angle(c - origin_centre, axis) is at most that plus spread.
 * Every doubt, a NaN included, answers yes. */
__device__ bool packet_may_hit(const Packet *packet, float3 centre, float radius)
{
    const float3 w = sub3(centre, packet->origin_centre);
    const float distance = sqrtf(dot3(w, w));
    const float reach = (radius + packet->origin_radius) * (1.0f + CULL_DISTANCE_MARGIN) +
                        CULL_DISTANCE_MARGIN * distance;
    if (!(distance > reach)) {
        return true; /* the sphere reaches the origins' ball (or a value is NaN) */
    }
    const float cosine = dot3(w, packet->axis) / distance;
    if (isnan(cosine)) {
        return true;
    }
    const float angle = acosf(fminf(fmaxf(cosine, -1.0f), 1.0f));
    return !(angle > packet->spread + asinf(reach / distance) + CULL_ANGLE_MARGIN);
}

/* Run by the lanes of warp 0 (lanes of them): writes to list, in ascending order, the spheres the
 * packet may hit, 32 at a time (a ballot gives each kept sphere its place); returns the count. */
__device__ int build_list(const Packet *packet, int sphere_count, unsigned short *list, int lanes)
{
    const unsigned lane = threadIdx.y * blockDim.x + threadIdx.x;
    const unsigned lane_mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    int written = 0;
    for (int base = 0; base < sphere_count; base += lanes) {
        const int s = base + (int)lane;
        const bool keep = s < sphere_count && packet_may_hit(packet, constant_spheres[s].center,
                                                             constant_spheres[s].radius);
        const unsigned kept = __ballot_sync(lane_mask, keep);
        if (keep) {
            list[written + __popc(kept & ((1u << lane) - 1u))] = (unsigned short)s;
        }
        written += __popc(kept);
    }
    return written;
}

/* Floats as ints that order the same way (for min and max with integer reductions and atomics). */
__device__ inline int ordered_int(float value)
{
    const int bits = __float_as_int(value);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

__device__ inline float ordered_float(int ordered)
{
    return __int_as_float(ordered >= 0 ? ordered : ordered ^ 0x7fffffff);
}

/* Each folds a value into *target over the whole block: first within the warp, where the GPU
 * has integer warp reductions (compute capability 8.0 and up), then one shared-memory atomic
 * per warp; on older GPUs, one atomic per thread. */
__device__ inline void block_min(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_min_sync(warp_mask, value);
    if (warp_leader) {
        atomicMin(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicMin(target, value);
#endif
}

__device__ inline void block_max(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_max_sync(warp_mask, value);
    if (warp_leader) {
        atomicMax(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicMax(target, value);
#endif
}

__device__ inline void block_add(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_add_sync(warp_mask, value);
    if (warp_leader) {
        atomicAdd(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicAdd(target, value);
#endif
}

/* Directions are summed for the axis in fixed point (any axis is correct: the spread is measured
 * from the one chosen), so that integer warp reductions and atomics can do it. */
#define AXIS_FIXED_POINT 65536.0f

/* The primary rays of the block: from the camera through the corners of its pixel rectangle. */
__device__ Packet primary_packet(float3 origin, int width, int height, int first_row, int end_row)
{
    const int i0 = blockIdx.x * blockDim.x;
    const int i1 = min(i0 + (int)blockDim.x, width) - 1;
    const int j0 = first_row + blockIdx.y * blockDim.y;
    const int j1 = min(j0 + (int)blockDim.y, end_row) - 1;
    float3 corners[4];
    for (int c = 0; c < 4; c++) {
        const int i = c & 1 ? i1 : i0;
        const int j = c & 2 ? j1 : j0;
        const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
        const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
        corners[c] = normalize3(sub3(make_float3(x, y, -1.0f), origin));
    }
    Packet packet;
    packet.origin_centre = origin;
    packet.origin_radius = 0.0f;
    packet.axis = normalize3(add3(add3(corners[0], corners[1]), add3(corners[2], corners[3])));
    float smallest_cosine = 1.0f;
    for (int c = 0; c < 4; c++) {
        smallest_cosine = fminf(smallest_cosine, dot3(packet.axis, corners[c]));
    }
    packet.spread = acosf(fmaxf(smallest_cosine, -1.0f));
    /* Past a right angle the four corners no longer bound the block's rays: the directions within
     * spread of the axis are no longer a convex cone (a camera a hair from the image plane:
     * tools/difftest.sh, seed 13). Such a block keeps every sphere. */
    if (!(packet.spread < WIDEST_CORNER_SPREAD)) {
        packet.spread = PI_RADIANS;
    }
    return packet;
}

/* Renders the rows first_row .. end_row - 1 of the image (one band); blockIdx.y counts from
 * first_row. */
__global__ void render_kernel(unsigned char *framebuffer, int sphere_count, int width, int height,
                              int first_row, int end_row)
{
    const Sphere *spheres = constant_spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    /* The block's packets and lists. Every thread of the block reaches every barrier below,
     * those past the image's edge too: they only take no part in the work between. */
    __shared__ Packet packets[3]; /* primary, shadow, reflection */
    __shared__ unsigned short primary_list[MAX_CONSTANT_SPHERES];
    __shared__ unsigned short shadow_list[MAX_CONSTANT_SPHERES];
    __shared__ unsigned short reflection_list[MAX_CONSTANT_SPHERES];
    __shared__ int list_counts[3];
    __shared__ int bounds[12];       /* origin min x y z, max x y z, then two direction sums */
    __shared__ int smallest_cosines[2]; /* shadow, reflection */
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int block_threads = blockDim.x * blockDim.y;
    const int lanes_of_warp0 = block_threads < 32 ? block_threads : 32;
    const int warp_first = thread & ~31;
    const int warp_lanes = block_threads - warp_first < 32 ? block_threads - warp_first : 32;
    const unsigned warp_mask = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1u;
    const float3 origin = camera->origin;

    if (thread == 0) {
        packets[0] = primary_packet(origin, width, height, first_row, end_row);
        for (int b = 0; b < 3; b++) {
            bounds[b] = ordered_int(INFINITY);
            bounds[3 + b] = ordered_int(-INFINITY);
        }
        for (int b = 6; b < 12; b++) {
            bounds[b] = 0;
        }
        smallest_cosines[0] = smallest_cosines[1] = ordered_int(1.0f);
    }
    __syncthreads();
    if (thread < 32) {
        const int count = build_list(&packets[0], sphere_count, primary_list, lanes_of_warp0);
        if (thread == 0) {
            list_counts[0] = count;
        }
    }
    __syncthreads();

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = first_row + blockIdx.y * blockDim.y + threadIdx.y;
    const bool inside = i < width && j < end_row;
    const int pixel = j * width + i;

    const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t = 0.0f;
    const int hit = inside ? closest_sphere_from_camera(direction, primary_list, list_counts[0], &t)
                           : -1;
    if (inside && hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
    }
    const bool shaded = hit >= 0;
    const Sphere *sphere = &spheres[shaded ? hit : 0];
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_viewer = normalize3(sub3(origin, point));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    const float3 reflected_light =
        normalize3(sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal)));
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float3 lifted_to_light = sub3(light->position, lifted);

    /* The secondary packets: the box around the lifted hit points, and the sums of the rays'
     * unit directions, reduced over each warp, then over the block with shared atomics. */
    const float3 shadow_unit = normalize3(lifted_to_light);
    const float inf = INFINITY;
    const int values[12] = {
        ordered_int(shaded ? lifted.x : inf),  ordered_int(shaded ? lifted.y : inf),
        ordered_int(shaded ? lifted.z : inf),  ordered_int(shaded ? lifted.x : -inf),
        ordered_int(shaded ? lifted.y : -inf), ordered_int(shaded ? lifted.z : -inf),
        shaded ? __float2int_rn(shadow_unit.x * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(shadow_unit.y * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(shadow_unit.z * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.x * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.y * AXIS_FIXED_POINT) : 0,
        shaded ? __float2int_rn(reflected_light.z * AXIS_FIXED_POINT) : 0};
    const bool warp_leader = thread == warp_first;
    for (int b = 0; b < 3; b++) {
        block_min(&bounds[b], values[b], warp_mask, warp_leader);
        block_max(&bounds[3 + b], values[3 + b], warp_mask, warp_leader);
    }
    for (int b = 6; b < 12; b++) {
        block_add(&bounds[b], values[b], warp_mask, warp_leader);
    }
    __syncthreads();
    if (thread == 0) {
        const float3 low = make_float3(ordered_float(bounds[0]), ordered_float(bounds[1]),
                                       ordered_float(bounds[2]));
        const float3 high = make_float3(ordered_float(bounds[3]), ordered_float(bounds[4]),
                                        ordered_float(bounds[5]));
        const float3 centre = scale3(0.5f, add3(low, high));
        const float3 half_size = scale3(0.5f, sub3(high, low));
        for (int p = 1; p < 3; p++) {
            const int sum = 6 + 3 * (p - 1);
            packets[p].origin_centre = centre;
            packets[p].origin_radius = sqrtf(dot3(half_size, half_size));
            packets[p].axis = normalize3(make_float3((float)bounds[sum], (float)bounds[sum + 1],
                                                     (float)bounds[sum + 2]));
        }
    }
    __syncthreads();
    /* Each packet's spread: the widest angle between its axis and one of its rays. */
    const int cosines[2] = {
        ordered_int(shaded ? dot3(packets[1].axis, shadow_unit) : 1.0f),
        ordered_int(shaded ? dot3(packets[2].axis, reflected_light) : 1.0f)};
    for (int p = 0; p < 2; p++) {
        block_min(&smallest_cosines[p], cosines[p], warp_mask, warp_leader);
    }
    __syncthreads();
    if (thread < 32) {
        if (thread == 0) {
            for (int p = 1; p < 3; p++) {
                packets[p].spread = acosf(fmaxf(ordered_float(smallest_cosines[p - 1]), -1.0f));
            }
        }
        __syncwarp(lanes_of_warp0 == 32 ? 0xffffffffu : (1u << lanes_of_warp0) - 1u);
        /* A block with no hit point has an empty box (its bounds are still infinite): no lists. */
        const bool any_hit = bounds[0] != ordered_int(INFINITY);
        const int shadow_count =
            any_hit ? build_list(&packets[1], sphere_count, shadow_list, lanes_of_warp0) : 0;
        const int reflection_count =
            any_hit ? build_list(&packets[2], sphere_count, reflection_list, lanes_of_warp0) : 0;
        if (thread == 0) {
            list_counts[1] = shadow_count;
            list_counts[2] = reflection_count;
        }
    }
    __syncthreads();
    if (!shaded) {
        return;
    }

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. */
    const float diffuse = fmaxf(dot3(to_light, normal), 0.0f);
    float specular = fmaxf(dot3(reflected_light, to_viewer), 0.0f);
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float shadow = shadow_factor(lifted, lifted_to_light, shadow_list, list_counts[1]);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, reflection_list, list_counts[2], &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &spheres[reflection_hit];
        const float3 q = add3(lifted, scale3(t_reflection, reflected_light));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow = shadow_factor(q_lifted, q_to_light, NULL, sphere_count);
        reflection = scale3(reflection_shadow, other->color);
    } else {
        reflection = make_float3(camera->background.x / 255.0f, camera->background.y / 255.0f,
                                 camera->background.z / 255.0f);
    }

    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * diffuse, light->color)),
                                 scale3(light->specular * specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    store_pixel(framebuffer, pixel, scale3(255.999f * shadow, all));
}

/* ---- the host side: allocate, copy, launch, copy back, free; every phase timed ------------ */

static float3 float3_from(struct spec_vec3 v)
{
    return make_float3(v.x, v.y, v.z);
}

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    size_t framebuffer_mapped_bytes;
    unsigned char *framebuffer =
        (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
    if (!framebuffer) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the frame buffer (%zu bytes) failed\n",
                stage_manifest.name, framebuffer_bytes);
        exit(1);
    }
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_map", start);
    start = timer_now_us();
    host_pages_touch(framebuffer, framebuffer_mapped_bytes, 0);
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_touch", start);
    start = timer_now_us();
    CUDA_CHECK(cudaHostRegister(framebuffer, framebuffer_mapped_bytes, cudaHostRegisterDefault));
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_register", start);
    start = timer_now_us();
    Sphere *spheres;
    CUDA_CHECK(cudaMallocHost((void **)&spheres, spheres_bytes));
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaMallocHost((void **)&light, sizeof(Light)));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaMallocHost((void **)&camera, sizeof(Camera)));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    /* The per-sphere constants, with the kernel's arithmetic (the host code is built without
     * fused multiply-add too, so each rounds the same). */
    float4 *geometry, *from_camera;
    CUDA_CHECK(cudaMallocHost((void **)&geometry, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&from_camera, (size_t)scene->sphere_count * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                  radius_squared);
        from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
    }
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    unsigned char *device_framebuffer;
    CUDA_CHECK(cudaMalloc((void **)&device_framebuffer, framebuffer_bytes));
    cudaStream_t streams[STREAM_COUNT];
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&streams[s]));
    }
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
    CUDA_CHECK(cudaEventCreate(&bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres, spheres_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_geometry, geometry,
                                  (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_from_camera, from_camera,
                                  (size_t)scene->sphere_count * sizeof(float4)));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera) +
                               2 * (size_t)scene->sphere_count * sizeof(float4);

    dim3 threads(job->block_x, job->block_y);
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    start = timer_now_us();
    /* Recorded in the legacy default stream, which the streams created above wait for. */
    CUDA_CHECK(cudaEventRecord(bands_start, 0));
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = streams[b % STREAM_COUNT];
        dim3 blocks((width + threads.x - 1) / threads.x,
                    (end_row - first_row + threads.y - 1) / threads.y);
        render_kernel<<<blocks, threads, 0, stream>>>(device_framebuffer, scene->sphere_count,
                                                      width, height, first_row, end_row);
        CUDA_CHECK_LAUNCH("render_kernel");
        CUDA_CHECK(cudaEventRecord(band_rendered[b], stream));
        CUDA_CHECK(cudaMemcpyAsync(framebuffer + (size_t)first_row * row_bytes,
                                   device_framebuffer + (size_t)first_row * row_bytes,
                                   (size_t)(end_row - first_row) * row_bytes,
                                   cudaMemcpyDeviceToHost, stream));
    }
    /* The kernel phase: until the last band is rendered (copies already under way inside it). */
    float kernels_ms = 0;
    for (int b = 0; b < bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, bands_start, band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;

    /* The copy phase: what is left of the copies once every band is rendered. */
    start = timer_now_us();
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamSynchronize(streams[s]));
    }
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    start = timer_now_us();
    CUDA_CHECK(cudaFree(device_framebuffer));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    }
    CUDA_CHECK(cudaEventDestroy(bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready_rgb8(job, framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(framebuffer));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(framebuffer, framebuffer_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
    start = timer_now_us();
    CUDA_CHECK(cudaFreeHost(spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(geometry));
    CUDA_CHECK(cudaFreeHost(from_camera));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
