/*
 * Stage 15, a stream for the copies: no kernel waits for another band's copy.
 *
 * Since stage 10, band b's kernel and then its copy go to stream b % 4, and a stream runs its
 * work in order: band b + 4's kernel cannot start before band b's copy has ended. While the
 * kernels were slower than the copies that cost nothing. Since stage 14 a band renders in less
 * time than its 12.6 MB take over PCIe, so the copies, one after another on the one copy engine
 * that moves data to the host, set the pace of the kernels too. Here the kernels keep their four
 * streams and every copy goes to one stream of its own, where it waits (cudaStreamWaitEvent)
 * for its band's event only: the kernels run back to back, the copies follow.
 *
 * Kept from earlier stages: each ray tests only the spheres of its tile's or light cell's bin
 * (stage 14; the README of 14-sphere-binning, "Why the image cannot change", says why the bits
 * stay), and the intersection solves the quadratic with half of b (stage 12: the factors 2 and 4
 * it drops are powers of two, which scale a float exactly).
 *
 * Builds on 14-sphere-binning.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "host_pages.h"
#include "stage.h"

#define FAR_PLANE 100.0f
#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */
/* 1024 * (28 + 16 + 16) bytes: most of constant memory's 64 KiB */
#define MAX_CONSTANT_SPHERES 1024
#define TILE_SIZE 32   /* primary rays are binned per tile of TILE_SIZE x TILE_SIZE pixels */
#define LIGHT_CELLS 64 /* each face of the light buffer: LIGHT_CELLS x LIGHT_CELLS cells */
/* The bins keep a sphere whose angular distance from a bin's cone is under these margins
 * (radians), and grow each radius by 1% (stage 14's README: why the image cannot change). */
#define PRIMARY_MARGIN 1e-3f
/* The widest tile whose four corners bound its rays (radians, under a right angle). */
#define WIDEST_CORNER_SPREAD 1.5f
#define PI_RADIANS 3.14159274f
#define SHADOW_MARGIN 1e-2f
/* A shadow ray of a reflection starts and ends 0.001 along the normal: its line passes within
 * 0.002 of the light. */
#define LIGHT_OFFSET 0.004f
/* The rounded test can report a sphere that a ray's line misses by up to about 1e-3 of the
 * distance from the ray's origin to the sphere (common/spec_bvh.h derives the bound), an angle
 * at the light past SHADOW_MARGIN when the origin is far and the sphere near the light
 * (tools/difftest.sh, seed 60). So each radius grows by SHADOW_REACH times the farthest a ray
 * that uses the cells can start from the sphere: a ray whose origin lies within shadow_near of
 * the light (scene_shadow_near) uses them, one that starts farther tests every sphere. */
#define SHADOW_REACH SPEC_BVH_REACH

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

/* ---- cones: which spheres can a bundle of rays meet? -------------------------------------- */

__device__ inline float3 unit3(float3 v)
{
    return scale3(1.0f / sqrtf(dot3(v, v)), v);
}

__device__ inline float angle_between_units(float3 a, float3 b)
{
    return acosf(fminf(fmaxf(dot3(a, b), -1.0f), 1.0f));
}

/* Can a ray from within extra_radius of apex, in a direction within spread radians of the unit
 * vector axis, meet sphere s? With both_ways, a line (a ray either way) is asked about. Errs
 * towards yes: the margin, the radius grown by 1%, and yes on NaN. */
__device__ bool cone_may_hit(float3 apex, float extra_radius, float3 axis, float spread,
                             bool both_ways, float margin, int s)
{
    const float3 to_centre = sub3(constant_spheres[s].center, apex);
    const float distance = sqrtf(dot3(to_centre, to_centre));
    const float radius = 1.01f * constant_spheres[s].radius + extra_radius;
    if (!(distance > radius)) {
        return true;
    }
    float cosine = dot3(axis, to_centre) / distance;
    if (both_ways) {
        cosine = fabsf(cosine);
    }
    const float separation = acosf(fminf(cosine, 1.0f));
    return !(separation > spread + asinf(radius / distance) + margin);
}

/* ---- rays and spheres --------------------------------------------------------------------- */

/* Returns true and the nearest positive distance along the ray in *t, given oc = origin - centre,
 * k = oc.oc - r^2 and the ray's a = d.d. half_b is b / 2 and quarter_discriminant is the
 * discriminant / 4: the same roundings scaled by powers of two (see the top of this file). */
__device__ bool has_intersection(float3 oc, float k, float3 direction, float a, float *t)
{
    const float half_b = dot3(direction, oc);
    /* The origin outside the sphere (k > 0) and its centre behind (d.oc > 0): both roots are
     * negative. In floats too: then disc <= fl(h^2), and sqrt(fl(h^2)) = h exactly, so the
     * root is at most h and t1 <= 0 (h above 1e-18 keeps h^2 clear of underflow). */
    if (k > 0.0f && half_b > 1e-18f) {
        return false;
    }
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

/* A warp loops over the union of its lanes' bins: the same spheres in every lane, read from
 * constant memory at once. A lane may test spheres it cannot hit; that costs time, never bits.
 * (__reduce_or_sync is one instruction from compute capability 8.0; older GPUs skip it and
 * each lane loops over its own bin.) */
__device__ inline unsigned int warp_union(unsigned int bits)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(__activemask(), bits);
#else
    return bits;
#endif
}

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. */
__device__ int closest_sphere(float3 origin, float3 direction, int sphere_count, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int s = 0; s < sphere_count; s++) {
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

/* The same for a primary ray: its origin is the camera, whose oc and k are ready per sphere.
 * Only the spheres of the tile's bin (mask_words words of bits), in sphere order. */
__device__ int closest_sphere_from_camera(float3 direction, const unsigned int *bin,
                                          int mask_words, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int w = 0; w < mask_words; w++) {
        unsigned int bits = warp_union(bin[w]);
        while (bits != 0) {
            const int s = w * 32 + __ffs(bits) - 1;
            bits &= bits - 1;
            const float4 from_camera = constant_from_camera[s];
            const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
            float t;
            if (has_intersection(oc, from_camera.w, direction, a, &t) && t < closest_distance) {
                closest_distance = t;
                closest = s;
            }
        }
    }
    *distance = closest_distance;
    return closest;
}

/* The light-buffer cell of a line through the light with this direction: the face of the
 * cube where the direction's largest component points (either sign: d and -d share a line),
 * then the other two components over it, from -1..1 to 0..LIGHT_CELLS-1. A direction of zero or
 * NaN gets the last row, which holds every sphere. */
__device__ const unsigned int *light_cell(const unsigned int *light_bins, float3 direction,
                                          int mask_words)
{
    const float ax = fabsf(direction.x), ay = fabsf(direction.y), az = fabsf(direction.z);
    float major, u, v;
    int face;
    if (ax >= ay && ax >= az) {
        face = 0, major = direction.x, u = direction.y, v = direction.z;
    } else if (ay >= az) {
        face = 1, major = direction.y, u = direction.x, v = direction.z;
    } else {
        face = 2, major = direction.z, u = direction.x, v = direction.y;
    }
    if (!(fabsf(major) > 0.0f)) {
        return light_bins + (size_t)3 * LIGHT_CELLS * LIGHT_CELLS * mask_words;
    }
    /* An approximate quotient is enough: the bins' margin covers a direction that lands in the
     * neighbouring cell. */
    const float scale = 0.5f * LIGHT_CELLS;
    const int cu = min(max((int)((__fdividef(u, major) + 1.0f) * scale), 0), LIGHT_CELLS - 1);
    const int cv = min(max((int)((__fdividef(v, major) + 1.0f) * scale), 0), LIGHT_CELLS - 1);
    return light_bins + ((size_t)(face * LIGHT_CELLS + cu) * LIGHT_CELLS + cv) * mask_words;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides.
 * Only the spheres of the ray's light-buffer cell, when the ray starts within shadow_near of the
 * light (direction ends at the light, up to 0.002: a is the distance squared); else every sphere,
 * the last row (NaN too). */
__device__ float shadow_factor(float3 origin, float3 direction, const unsigned int *light_bins,
                               int mask_words, float near_squared)
{
    const float a = dot3(direction, direction);
    const unsigned int *bin =
        a <= near_squared ? light_cell(light_bins, direction, mask_words)
                          : light_bins + (size_t)3 * LIGHT_CELLS * LIGHT_CELLS * mask_words;
    for (int w = 0; w < mask_words; w++) {
        unsigned int bits = warp_union(bin[w]);
        while (bits != 0) {
            const int s = w * 32 + __ffs(bits) - 1;
            bits &= bits - 1;
            float k, t;
            const float3 oc = from_sphere(origin, constant_geometry[s], &k);
            if (has_intersection(oc, k, direction, a, &t) && t > 1e-6f) {
                return 0.35f;
            }
        }
    }
    return 1.0f;
}

/* ---- the bins, worked out once per frame before the bands --------------------------------- */

/* One thread per tile and mask word: the bits of the 32 spheres of that word. The tile's rays
 * end on a rectangle of the image plane, so the widest angle from the ray through its centre
 * is at a corner. */
__global__ void bin_tiles_kernel(unsigned int *tile_bins, int tiles_x, int tiles_y,
                                 int mask_words, int sphere_count, int width, int height)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= tiles_x * tiles_y * mask_words) {
        return;
    }
    const int word = index % mask_words, tile = index / mask_words;
    const int i0 = (tile % tiles_x) * TILE_SIZE, j0 = (tile / tiles_x) * TILE_SIZE;
    const int i1 = min(i0 + TILE_SIZE, width) - 1, j1 = min(j0 + TILE_SIZE, height) - 1;
    const float3 origin = constant_camera.origin;
    const float x0 = 2.0f * ((float)i0 + 0.5f) / (float)(width - 1) - 1.0f;
    const float x1 = 2.0f * ((float)i1 + 0.5f) / (float)(width - 1) - 1.0f;
    const float y0 = 1.0f - 2.0f * ((float)j0 + 0.5f) / (float)(height - 1);
    const float y1 = 1.0f - 2.0f * ((float)j1 + 0.5f) / (float)(height - 1);
    const float3 axis =
        unit3(sub3(make_float3(0.5f * (x0 + x1), 0.5f * (y0 + y1), -1.0f), origin));
    float spread = 0.0f;
    for (int corner = 0; corner < 4; corner++) {
        const float3 d = sub3(make_float3(corner & 1 ? x1 : x0, corner & 2 ? y1 : y0, -1.0f),
                              origin);
        spread = fmaxf(spread, angle_between_units(axis, unit3(d)));
    }
    /* Past a right angle the corners no longer bound the tile: the directions within spread of
     * the axis are no longer a convex cone, and a ray through the tile's middle may leave the
     * corners' cone (a camera a hair from the image plane: tools/difftest.sh, seed 13). Such a
     * tile keeps every sphere. */
    if (!(spread < WIDEST_CORNER_SPREAD)) {
        spread = PI_RADIANS;
    }
    unsigned int bits = 0;
    for (int b = 0; b < 32 && word * 32 + b < sphere_count; b++) {
        if (cone_may_hit(origin, 0.0f, axis, spread, false, PRIMARY_MARGIN, word * 32 + b)) {
            bits |= 1u << b;
        }
    }
    tile_bins[index] = bits;
}

/* One thread per light-buffer cell and mask word; the extra last row keeps every sphere. A ray
 * that uses a cell starts within shadow_near + LIGHT_OFFSET of the light, so within that plus
 * |c - light| of a sphere: its radius grows by SHADOW_REACH times that (SHADOW_REACH). */
__global__ void bin_light_kernel(unsigned int *light_bins, int mask_words, int sphere_count,
                                 float shadow_near)
{
    const int cells = 3 * LIGHT_CELLS * LIGHT_CELLS;
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= (cells + 1) * mask_words) {
        return;
    }
    const int word = index % mask_words, cell = index / mask_words;
    unsigned int bits = 0;
    if (cell == cells) {
        bits = ~0u;
    } else {
        const int face = cell / (LIGHT_CELLS * LIGHT_CELLS);
        const int cu = cell / LIGHT_CELLS % LIGHT_CELLS, cv = cell % LIGHT_CELLS;
        const float u0 = -1.0f + 2.0f * cu / LIGHT_CELLS, u1 = -1.0f + 2.0f * (cu + 1) / LIGHT_CELLS;
        const float v0 = -1.0f + 2.0f * cv / LIGHT_CELLS, v1 = -1.0f + 2.0f * (cv + 1) / LIGHT_CELLS;
        float3 corners[5]; /* the centre, then the four corners, on the face at distance 1 */
        for (int c = 0; c < 5; c++) {
            const float u = c == 0 ? 0.5f * (u0 + u1) : c & 1 ? u1 : u0;
            const float v = c == 0 ? 0.5f * (v0 + v1) : c & 2 ? v1 : v0;
            corners[c] = unit3(face == 0   ? make_float3(1.0f, u, v)
                               : face == 1 ? make_float3(u, 1.0f, v)
                                           : make_float3(u, v, 1.0f));
        }
        float spread = 0.0f;
        for (int c = 1; c < 5; c++) {
            spread = fmaxf(spread, angle_between_units(corners[0], corners[c]));
        }
        for (int b = 0; b < 32 && word * 32 + b < sphere_count; b++) {
            const float3 to_centre =
                sub3(constant_spheres[word * 32 + b].center, constant_light.position);
            const float reach =
                SHADOW_REACH * (shadow_near + LIGHT_OFFSET + sqrtf(dot3(to_centre, to_centre)));
            if (cone_may_hit(constant_light.position, LIGHT_OFFSET + reach, corners[0], spread,
                             true, SHADOW_MARGIN, word * 32 + b)) {
                bits |= 1u << b;
            }
        }
    }
    light_bins[index] = bits;
}

/* Renders the rows first_row .. end_row - 1 of the image (one band); blockIdx.y counts from
 * first_row. */
__global__ void render_kernel(unsigned char *framebuffer, const unsigned int *tile_bins,
                              const unsigned int *light_bins, int mask_words, int sphere_count,
                              int width, int height, int first_row, int end_row, float shadow_near)
{
    const Sphere *spheres = constant_spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = first_row + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= width || j >= end_row) {
        return;
    }
    const int pixel = j * width + i;

    const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int tiles_x = (width + TILE_SIZE - 1) / TILE_SIZE;
    const unsigned int *tile_bin =
        tile_bins + ((size_t)(j / TILE_SIZE) * tiles_x + i / TILE_SIZE) * mask_words;
    const int hit = closest_sphere_from_camera(direction, tile_bin, mask_words, &t);
    if (hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
        return;
    }

    const Sphere *sphere = &spheres[hit];
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_viewer = normalize3(sub3(origin, point));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    const float3 reflected_light =
        normalize3(sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal)));

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
    const float near_squared = shadow_near * shadow_near;
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow =
        shadow_factor(lifted, sub3(light->position, lifted), light_bins, mask_words, near_squared);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, sphere_count, &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &spheres[reflection_hit];
        const float3 q = add3(lifted, scale3(t_reflection, reflected_light));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow =
            shadow_factor(q_lifted, q_to_light, light_bins, mask_words, near_squared);
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

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    unsigned int *tile_bins, *light_bins; /* mask_words words per tile, per cell */
    int tiles_x, tiles_y, mask_words;
    float shadow_near; /* the light cells serve shadow rays from within this of the light */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* The scene into constant memory (an interactive renderer would change it between frames). */
static void upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                         const float4 *geometry, const float4 *from_camera, int sphere_count)
{
    CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres,
                                  (size_t)sphere_count * sizeof(Sphere)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_geometry, geometry,
                                  (size_t)sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_from_camera, from_camera,
                                  (size_t)sphere_count * sizeof(float4)));
}

/* Launches every band's kernel and copy on its stream; returns the number of bands. */
static int launch_bands(const struct frame_resources *frame, dim3 threads, int sphere_count,
                        int width, int height)
{
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    /* Recorded in the legacy default stream, which the streams created above wait for; so do
     * the bins, launched there too. */
    CUDA_CHECK(cudaEventRecord(frame->bands_start, 0));
    const int bin_threads = 256;
    const int tile_words = frame->tiles_x * frame->tiles_y * frame->mask_words;
    bin_tiles_kernel<<<(tile_words + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->tile_bins, frame->tiles_x, frame->tiles_y, frame->mask_words, sphere_count, width,
        height);
    CUDA_CHECK_LAUNCH("bin_tiles_kernel");
    const int light_words = (3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words;
    bin_light_kernel<<<(light_words + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->light_bins, frame->mask_words, sphere_count, frame->shadow_near);
    CUDA_CHECK_LAUNCH("bin_light_kernel");
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        dim3 blocks((width + threads.x - 1) / threads.x,
                    (end_row - first_row + threads.y - 1) / threads.y);
        render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->tile_bins,
                                                      frame->light_bins, frame->mask_words,
                                                      sphere_count, width, height, first_row,
                                                      end_row, frame->shadow_near);
        CUDA_CHECK_LAUNCH("render_kernel");
        CUDA_CHECK(cudaEventRecord(frame->band_rendered[b], stream));
        /* The copy waits for this band's kernel, and no kernel waits for it. */
        CUDA_CHECK(cudaStreamWaitEvent(frame->copy_stream, frame->band_rendered[b], 0));
        CUDA_CHECK(cudaMemcpyAsync(frame->framebuffer + (size_t)first_row * row_bytes,
                                   frame->device_framebuffer + (size_t)first_row * row_bytes,
                                   (size_t)(end_row - first_row) * row_bytes,
                                   cudaMemcpyDeviceToHost, frame->copy_stream));
    }
    return bands;
}

/* Each copy waits for its band's kernel, so once the copies are done, so is every band. */
static void wait_for_copies(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaStreamSynchronize(frame->copy_stream));
}

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
    struct frame_resources frame;
    size_t framebuffer_mapped_bytes;
    unsigned char *framebuffer =
        (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
    frame.framebuffer = framebuffer;
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
    frame.shadow_near = scene_shadow_near(scene);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMalloc((void **)&frame.device_framebuffer, framebuffer_bytes));
    frame.tiles_x = (width + TILE_SIZE - 1) / TILE_SIZE;
    frame.tiles_y = (height + TILE_SIZE - 1) / TILE_SIZE;
    frame.mask_words = (scene->sphere_count + 31) / 32;
    CUDA_CHECK(cudaMalloc((void **)&frame.tile_bins, (size_t)frame.tiles_x * frame.tiles_y *
                                                         frame.mask_words * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&frame.light_bins,
                          (size_t)(3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame.mask_words *
                              sizeof(unsigned int)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame.copy_stream));
    CUDA_CHECK(cudaEventCreate(&frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    upload_scene(spheres, light, camera, geometry, from_camera, scene->sphere_count);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera) +
                               2 * (size_t)scene->sphere_count * sizeof(float4);

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    int bands = launch_bands(&frame, threads, scene->sphere_count, width, height);
    /* The kernel phase: until the last band is rendered (copies already under way inside it). */
    float kernels_ms = 0;
    for (int b = 0; b < bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(frame.band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, frame.bands_start, frame.band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;

    /* The copy phase: what is left of the copies once every band is rendered. */
    start = timer_now_us();
    wait_for_copies(&frame);
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* Steady state: frames 2..N reuse everything above; each is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            upload_scene(spheres, light, camera, geometry, from_camera, scene->sphere_count);
            launch_bands(&frame, threads, scene->sphere_count, width, height);
            wait_for_copies(&frame);
            double frame_us = timer_now_us() - frame_start;
            frames_us += frame_us;
            fastest_us = f == 1 || frame_us < fastest_us ? frame_us : fastest_us;
        }
        report_metric(report, "frames", job->frames, "frames");
        report_metric(report, "steady_frame", frames_us / (job->frames - 1), "us");
        report_metric(report, "steady_frame_min", fastest_us, "us");
    }

    start = timer_now_us();
    CUDA_CHECK(cudaFree(frame.device_framebuffer));
    CUDA_CHECK(cudaFree(frame.tile_bins));
    CUDA_CHECK(cudaFree(frame.light_bins));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamDestroy(frame.copy_stream));
    CUDA_CHECK(cudaEventDestroy(frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame.band_rendered[b]));
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
