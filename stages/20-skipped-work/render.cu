/*
 * Stage 20, skipped work: what cannot change a pixel's bits is not computed.
 *
 * Since stage 19 the schedulers issue in nearly every cycle they can: the kernel is as fast as
 * its instruction count. This stage takes out instructions whose results the image does not
 * need, each with the reason the bits cannot change (README.md gives each in full):
 * - The specular term. A cosine below a cutoff, raised to the 32nd power and scaled, adds less
 *   than half a unit in the last place to the lighting (at least the ambient term): the sum
 *   rounds back to the same float. The host works out the cutoff from the scene's ambient and
 *   specular coefficients (SPEC.md's numbers: 0.52); a cheap test on vectors that are not yet
 *   normalised decides, with a margin far above their rounding, and only the pixels that pass
 *   normalise the view vector and the reflection to compute the term.
 * - Spheres a reflection ray leaves. A ray that starts outside a sphere and points away from its
 *   centre cannot hit it (has_intersection's first test), as the ground is for every ground
 *   pixel's reflection. The same test, with a margin, on the direction before it is normalised
 *   skips them; the direction is normalised only if a sphere is left to test.
 * - Three quotients by one length. An IEEE division is the hardware's approximate reciprocal, a
 *   Newton step that refines it, two fused multiply-adds for the quotient and its correction,
 *   and a range check (FCHK) that sends unusual operands to a slow path. normalize3 divides three
 *   components by one length: it refines the reciprocal once and keeps the quotient steps. Where
 *   the range check would pass (lengths and quotients far from overflow and underflow; the code
 *   checks a narrower range), those steps give the correctly rounded quotient, the same bits
 *   as the division; elsewhere normalize3 divides.
 * - Per pixel, what is the same for a whole column, row or frame: the image-plane x and y (two
 *   divisions) come from tables a small kernel writes, the background over 255 from the host.
 * - Cheaper forms of the same result: the far root only when the near one is not positive, the
 *   channel clamp as two min/max, the tile and light-cell indices in 32-bit integers (they fit),
 *   one approximate quotient for the light cell, and the packet's square roots from rsqrtf with
 *   a margin (a packet's bound only needs to be wide enough).
 * The registers the new code needs come back from a budget of five blocks an SM (48 registers)
 * instead of six (40 and more spills).
 *
 * Kept from earlier stages: stage 14's bins and stage 17's packets (14-sphere-binning's README,
 * "Why the image cannot change"), stage 12's half of b (powers of two scale a float exactly).
 *
 * Builds on 19-global-sphere-loads.
 */
#include <math.h>
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
    /* Below the square root of this, the specular cosine cannot change a bit (see the top). */
    float negligible_cosine_squared;
};

struct Camera {
    float3 origin;
    float3 background;      /* 0..255: what a ray that hits nothing sees */
    float3 background_unit; /* the same over 255, worked out once on the host */
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

/* a / b from y, the refined reciprocal of b: the last three steps of the GPU's own IEEE division
 * (the quotient, its remainder, the corrected quotient), as its fast path computes them. */
__device__ inline float quotient_refined(float a, float b, float y)
{
    const float q = fmaf(a, y, 0.0f);
    return fmaf(y, fmaf(q, -b, a), q);
}

/* Three quotients by the length, correctly rounded: the same bits as SPEC.md's three divisions
 * (docs/reference.md: same picture). On the GPU one reciprocal serves the three, where the
 * operands are in a range the division's fast path covers (see the top); elsewhere, and on the
 * host, three divisions. */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
#ifdef __CUDA_ARCH__
    const float smallest = fminf(fminf(fabsf(v.x), fabsf(v.y)), fabsf(v.z));
    if (length >= 0x1p-20f && length <= 0x1p100f && smallest >= length * 0x1p-60f) {
        float y0; /* the hardware's approximate reciprocal, as the division's first step */
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(length));
        const float y = fmaf(y0, fmaf(y0, -length, 1.0f), y0);
        return make_float3(quotient_refined(v.x, length, y), quotient_refined(v.y, length, y),
                           quotient_refined(v.z, length, y));
    }
#endif
    return make_float3(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ inline float3 cap3(float3 v)
{
    return make_float3(fminf(v.x, 1.0f), fminf(v.y, 1.0f), fminf(v.z, 1.0f));
}

/* SPEC.md's output rule, as common/image.c applies it on the host: truncation toward zero,
 * clamped to 0..255, NaN to 0 (fmaxf returns the number when the other operand is NaN). */
__device__ inline unsigned char channel_from_float(float value)
{
    return (unsigned char)fminf(fmaxf(value, 0.0f), 255.0f);
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
    /* t0 <= t1 whenever both are numbers (root >= 0, a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    if (t0 > 0.0f) {
        *t = t0;
        return true;
    }
    *t = (-half_b + root) / a;
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

/* The rays of the lanes that call warp_packet together: every origin within radius of apex,
 * every direction within an angle of the (nearly) unit vector axis whose cosine and sine are
 * given, the margin included. The lanes (a mask) share the work of binning: the lane of rank r
 * asks about spheres r, r + lane_count, ... of each word. */
struct Packet {
    float3 apex, axis;
    float radius, cos_spread, sin_spread;
    unsigned int lanes;
    int rank, lane_count;
};

/* The margin of a reflection packet, 0.01 radians, as its cosine and sine. */
#define COS_MARGIN 0.99995000f
#define SIN_MARGIN 0.00999983f

/* Non-negative floats order like their bits read as unsigned integers, so an integer maximum
 * over the warp is a float maximum (a NaN, whose bits are above every finite float, wins, and
 * then every sphere is kept). Before compute capability 8.0 (no __reduce_max_sync) each lane is
 * its own packet. rsqrtf is the hardware's approximate 1/sqrt: close enough for a bound that
 * carries a margin of 0.01 radians. */
__device__ Packet warp_packet(float3 origin, float3 direction)
{
    Packet packet;
    float reach_squared = 0.0f, turn = 0.0f;
#if __CUDA_ARCH__ >= 800
    const unsigned int lanes = __activemask();
    const int leader = __ffs(lanes) - 1;
    const int lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    packet.apex = make_float3(__shfl_sync(lanes, origin.x, leader),
                              __shfl_sync(lanes, origin.y, leader),
                              __shfl_sync(lanes, origin.z, leader));
    const float3 leader_direction = make_float3(__shfl_sync(lanes, direction.x, leader),
                                                __shfl_sync(lanes, direction.y, leader),
                                                __shfl_sync(lanes, direction.z, leader));
    packet.axis = scale3(rsqrtf(dot3(leader_direction, leader_direction)), leader_direction);
    const float3 offset = sub3(origin, packet.apex);
    /* 1 - cos of the angle to the axis: zero or above (a hair below 0 is rounding). */
    turn = fmaxf(1.0f - dot3(direction, packet.axis) * rsqrtf(dot3(direction, direction)), 0.0f);
    reach_squared = __uint_as_float(__reduce_max_sync(lanes, __float_as_uint(dot3(offset, offset))));
    turn = __uint_as_float(__reduce_max_sync(lanes, __float_as_uint(turn)));
    packet.lanes = lanes;
    packet.rank = __popc(lanes & ((1u << lane) - 1));
    packet.lane_count = __popc(lanes);
#else
    packet.apex = origin;
    packet.axis = scale3(rsqrtf(dot3(direction, direction)), direction);
    packet.lanes = 0;
    packet.rank = 0;
    packet.lane_count = 1;
#endif
    /* Square roots from rsqrtf, rounded up by 0.01%: a bound may be a little wide, not narrow. */
    reach_squared = fmaxf(reach_squared, 1e-30f);
    packet.radius = 1.0001f * reach_squared * rsqrtf(reach_squared);
    /* The widest angle plus the margin, as cos(a + m) = cos a cos m - sin a sin m. */
    const float cos_widest = 1.0f - turn;
    const float sine_squared = fmaxf(1.0f - cos_widest * cos_widest, 1e-30f);
    const float sin_widest = 1.0001f * sine_squared * rsqrtf(sine_squared);
    packet.cos_spread = cos_widest * COS_MARGIN - sin_widest * SIN_MARGIN;
    packet.sin_spread = sin_widest * COS_MARGIN + cos_widest * SIN_MARGIN;
    return packet;
}

/* Can a ray of the packet meet sphere s (grown by 1% and by the packet's radius)? The angle
 * between the axis and the centre, seen from the apex, must be at most the spread plus the
 * sphere's angular radius b (sin b = R / |v|). In cosines, times |v|: axis.v >=
 * cos(spread) sqrt(|v|^2 - R^2) - sin(spread) R. No division, no arc sine. A spread of 90 degrees
 * or more keeps every sphere; so does a NaN. The centre and the grown radius come from bounds,
 * in global memory: the lanes of the warp ask for different spheres at once. */
__device__ bool packet_may_hit(const Packet *packet, const float4 *bounds, int s)
{
    const float4 bound = __ldg(&bounds[s]);
    const float3 to_centre = sub3(make_float3(bound.x, bound.y, bound.z), packet->apex);
    const float radius = bound.w + packet->radius;
    const float distance_squared = dot3(to_centre, to_centre);
    const float tangent_squared = distance_squared - radius * radius;
    if (!(tangent_squared > 0.0f) || !(packet->cos_spread > 0.0f)) {
        return true;
    }
    const float tangent = tangent_squared * rsqrtf(tangent_squared);
    return !(dot3(packet->axis, to_centre) <
             packet->cos_spread * tangent - packet->sin_spread * radius);
}

/* The packet's bin for spheres first .. first + 31: this lane's share, then the union. */
__device__ unsigned int packet_bits(const Packet *packet, const float4 *bounds, int first,
                                    int sphere_count)
{
    unsigned int bits = 0;
    for (int b = packet->rank; b < 32 && first + b < sphere_count; b += packet->lane_count) {
        if (packet_may_hit(packet, bounds, first + b)) {
            bits |= 1u << b;
        }
    }
#if __CUDA_ARCH__ >= 800
    bits = __reduce_or_sync(packet->lanes, bits);
#endif
    return bits;
}

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. Only the spheres of the warp's packet bin, in sphere order. The
 * direction is the reflection before normalize3 (the packet's bound does not care about its
 * length); it is normalised only when a sphere is left to test, and returned in *direction_out. */
__device__ int closest_sphere(float3 origin, float3 mirror, const float4 *bounds, int sphere_count,
                              float *distance, float3 *direction_out)
{
    const Packet packet = warp_packet(origin, mirror);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    float3 direction = mirror;
    float a = 0.0f;
    bool normalized = false;
    for (int first = 0; first < sphere_count; first += 32) {
        unsigned int bits = packet_bits(&packet, bounds, first, sphere_count);
        while (bits != 0) {
            const int s = first + __ffs(bits) - 1;
            bits &= bits - 1;
            float k, t;
            const float3 oc = from_sphere(origin, constant_geometry[s], &k);
            /* Outside the sphere (k > 0) and leaving it: has_intersection would say no. The
             * cosine between mirror and oc is above 0.001, so the normalised direction leaves
             * too, whatever its rounding (and half_b clears 1e-18). */
            const float away = dot3(mirror, oc);
            if (k > 0.0f && away > 1e-17f && away * away > 1e-6f * (k + constant_geometry[s].w)) {
                continue;
            }
            if (!normalized) {
                direction = normalize3(mirror);
                a = dot3(direction, direction);
                normalized = true;
            }
            if (has_intersection(oc, k, direction, a, &t) && t < closest_distance) {
                closest_distance = t;
                closest = s;
            }
        }
    }
    *distance = closest_distance;
    *direction_out = direction;
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
    const float per_unit = __fdividef(scale, major);
    const int cu = min(max((int)fmaf(u, per_unit, scale), 0), LIGHT_CELLS - 1);
    const int cv = min(max((int)fmaf(v, per_unit, scale), 0), LIGHT_CELLS - 1);
    return light_bins + ((face * LIGHT_CELLS + cu) * LIGHT_CELLS + cv) * mask_words;
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

/* The image plane's x of every column and y of every row (width + height threads), with the
 * arithmetic each pixel used: the same bits, two divisions per column and row, not per pixel. */
__global__ void plane_kernel(float *plane_x, float *plane_y, int width, int height)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < width) {
        plane_x[index] = 2.0f * ((float)index + 0.5f) / (float)(width - 1) - 1.0f;
    } else if (index < width + height) {
        const int j = index - width;
        plane_y[j] = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    }
}

/* Renders the rows first_row .. end_row - 1 of the image (one band); blockIdx.y counts from
 * first_row. */
/* At most 256 threads a block, and five blocks an SM: 48 registers a thread (at six, 40 registers,
 * the code of this stage spills three times as much). An SM of compute capability 7.5 holds at
 * most 1,024 threads, so four blocks there. */
#define BLOCK_THREADS_MAX 256
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define BLOCKS_PER_SM_MIN 4
#else
#define BLOCKS_PER_SM_MIN 5
#endif
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, const unsigned int *tile_bins,
                  const unsigned int *light_bins, const float4 *bounds, const float *plane_x,
                  const float *plane_y, int mask_words, int sphere_count, int width, int height,
                  int first_row, int end_row, float shadow_near)
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

    const float x = plane_x[i];
    const float y = plane_y[j];
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int tiles_x = (width + TILE_SIZE - 1) / TILE_SIZE;
    const unsigned int *tile_bin =
        tile_bins + ((j / TILE_SIZE) * tiles_x + i / TILE_SIZE) * mask_words;
    const int hit = closest_sphere_from_camera(direction, tile_bin, mask_words, &t);
    if (hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
        return;
    }

    const Sphere *sphere = &spheres[hit];
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    /* The reflected light direction before normalize3: the reflection ray's, and the specular
     * term's. */
    const float3 mirror = sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal));

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. The specular term
     * only where it can change a bit (see the top): the rest keep 0, as the squarings give. */
    const float diffuse = fmaxf(dot3(to_light, normal), 0.0f);
    float specular = 0.0f;
    const float3 eye = sub3(origin, point);
    const float eye_cosine = dot3(mirror, eye);
    if (eye_cosine > 0.0f &&
        eye_cosine * eye_cosine > light->negligible_cosine_squared * dot3(eye, eye)) {
        const float3 to_viewer = normalize3(sub3(origin, point));
        const float3 reflected_light = normalize3(mirror);
        specular = fmaxf(dot3(reflected_light, to_viewer), 0.0f);
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
    }

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float near_squared = shadow_near * shadow_near;
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow =
        shadow_factor(lifted, sub3(light->position, lifted), light_bins, mask_words, near_squared);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    float3 reflected_light;
    const int reflection_hit = closest_sphere(lifted, mirror, bounds, sphere_count,
                                              &t_reflection, &reflected_light);
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
        reflection = camera->background_unit;
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
    float4 *bounds; /* per sphere: centre and 1.01 x radius, for the reflection packets */
    float *plane_x, *plane_y; /* per column, per row */
    int tiles_x, tiles_y, mask_words;
    float shadow_near; /* the light cells serve shadow rays from within this of the light */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* The scene into constant memory (an interactive renderer would change it between frames). */
static void upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                         const float4 *geometry, const float4 *from_camera, const float4 *bounds,
                         float4 *device_bounds, int sphere_count)
{
    CUDA_CHECK(cudaMemcpy(device_bounds, bounds, (size_t)sphere_count * sizeof(float4),
                          cudaMemcpyHostToDevice));
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
    plane_kernel<<<(width + height + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        dim3 blocks((width + threads.x - 1) / threads.x,
                    (end_row - first_row + threads.y - 1) / threads.y);
        render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->tile_bins,
                                                      frame->light_bins, frame->bounds,
                                                      frame->plane_x, frame->plane_y,
                                                      frame->mask_words,
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
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
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
    camera->background_unit = make_float3(camera->background.x / 255.0f,
                                          camera->background.y / 255.0f,
                                          camera->background.z / 255.0f);
    /* The specular term ks s^32 c must stay under half an ulp of the lighting, which is at least
     * the ambient term a c (ulp(x) > x / 2^24): s^32 < a / ks / 2^25, taken 4 times smaller, and
     * 0.97 of it squared for the test's rounding. Below 0.03 the 32nd power is 0 in floats
     * whatever the scene; that cutoff serves where a / ks is tiny or zero. */
    double cutoff = 0.03;
    if (light->specular > 0.0f && light->ambient >= 0x1p-100f * light->specular) {
        const double derived = pow((double)light->ambient / light->specular * 0x1p-27, 1.0 / 32);
        cutoff = derived > cutoff ? derived : cutoff;
    }
    light->negligible_cosine_squared = (float)(0.97 * cutoff * cutoff);
    /* The per-sphere constants, with the kernel's arithmetic (the host code is built without
     * fused multiply-add too, so each rounds the same). */
    float4 *geometry, *from_camera, *bounds;
    CUDA_CHECK(cudaMallocHost((void **)&geometry, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&from_camera, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&bounds, (size_t)scene->sphere_count * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                  radius_squared);
        from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
        bounds[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                1.01f * spheres[s].radius);
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
    CUDA_CHECK(cudaMalloc((void **)&frame.bounds, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_x, (size_t)width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_y, (size_t)height * sizeof(float)));
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
    upload_scene(spheres, light, camera, geometry, from_camera, bounds, frame.bounds,
                 scene->sphere_count);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera) +
                               3 * (size_t)scene->sphere_count * sizeof(float4);

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
            upload_scene(spheres, light, camera, geometry, from_camera, bounds, frame.bounds,
                         scene->sphere_count);
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
    CUDA_CHECK(cudaFree(frame.bounds));
    CUDA_CHECK(cudaFree(frame.plane_x));
    CUDA_CHECK(cudaFree(frame.plane_y));
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
    CUDA_CHECK(cudaFreeHost(bounds));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
