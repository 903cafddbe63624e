/*
 * Stage 31, compact nodes: an inner node's two child boxes as half-precision floats, rounded
 * outward, so that the node is one 32-byte sector and a child one 16-byte load.
 *
 * Stage 30's node holds its children's boxes in floats: 64 bytes, two 32-byte sectors, read by six
 * loads (the two indices, then, once an index says the child is an inner node, its box's two
 * 16-byte quarters). On 100,000 spheres its walk issues 5.5 G loads a frame from global memory,
 * and L1 misses 11.5% of the sectors it is asked for. Here each of a box's six planes is a half
 * (IEEE binary16: 11 significant bits), the low ones rounded down and the high ones up
 * (__float2half_rd, __float2half_ru), and each child's 16-byte quarter holds its index and its
 * box: two loads a node, issued together, one sector. A plane beyond the halves' range becomes an
 * infinity on its outer side only (a box unbounded there). The box grows by at most one half's
 * spacing a side (at most 2^-10 of the coordinate, 0.0078 between 8 and 16; 2^-24 below 2^-14).
 * Against the same best t, a box is entered wherever its float box is: the cone test keeps every
 * box whose spheres a ray may be reported to hit at or before that t, for any box that contains
 * the float one (its rounding grows with the plane by 4 eps of the growth, which the growth itself
 * covers). So the nearest (t, index), and whether any blocker exists, do not depend on the order
 * the walk meets the spheres in, and the image keeps its bits. The price: six conversions a box,
 * two packed boxes held in registers from their load to their tests, a few more nodes.
 *
 * Builds on 30-warp-tiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_fp16.h>

#include "gpu.h"
#include "host_pages.h"
#include "stage.h"

#define FAR_PLANE 100.0f
#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

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

/* ---- the scene: the light and the camera in constant memory, the spheres and the tree in global
 * memory ----------------------------------------------------------------------------------- */

__constant__ Light constant_light;
__constant__ Camera constant_camera;

/* The walk's stack: a depth-first walk holds at most one pending child a level. A
 * clustered tree of random spheres is about 2.5 log2(n) levels deep (about 45 for 100,000); a
 * deeper one is walked as far as the stack allows, then finished by the loop over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
#endif

/* An inner node of the tree: its children, each an inner node (c >= 0) or the leaf of sorted
 * sphere ~c (c < 0), and their boxes widened for the cone test (spec_bvh_cone_widen_box) then
 * rounded outward to halves: 32 bytes, one sector, a 16-byte quarter a child (its index, then
 * its box's low x, y, z and high x, y, z, two halves a word, the first in the low bits). The
 * root is node 0 (or, for a single sphere, the leaf ~0). */
struct __align__(32) Node {
    int left;
    unsigned int left_box[3];
    int right;
    unsigned int right_box[3];
};

/* What the kernel reads of the scene, all in global memory: the spheres, two 16-byte views of
 * them (centre and radius squared; oc and k from the camera), and the hierarchy (inner nodes,
 * the sphere indices in Morton order: leaf ~c is sphere order[c], and the two views copied into
 * that order: leaf ~c's are leaf_geometry[c] and leaf_from_camera[c]). */
struct Scene {
    const Sphere *spheres;
    const float4 *geometry;    /* per sphere: centre x, y, z and the radius squared */
    const float4 *from_camera; /* per sphere: oc = camera - centre, and k = oc.oc - r^2 */
    const Node *nodes;
    const int *order;
    const float4 *leaf_geometry, *leaf_from_camera; /* per leaf, in tree order */
    int root; /* 0, or ~0 for a scene of one sphere */
    int sphere_count;
};

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


/* ---- the hierarchy: a box skipped is every sphere inside it skipped ----------------------- */

/* What a walk of the tree looks for: the nearest sphere of a ray from the camera (its oc and k
 * read per sphere), the nearest of a ray from a surface point, or any sphere that shadows. */
enum search { NEAREST_FROM_CAMERA, NEAREST, ANY_BLOCKER };

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct Pending {
    int node;
    float enter;
};

/* An inner node's two children, each with its packed box: one 16-byte load a child (its
 * quarter of the node's one sector), through the read-only cache. */
__device__ inline void load_children(const Node *nodes, int index, int children[2],
                                     uint3 boxes[2])
{
    const uint4 *quarters = (const uint4 *)&nodes[index];
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const uint4 quarter = __ldg(&quarters[k]);
        children[k] = (int)quarter.x;
        boxes[k] = make_uint3(quarter.y, quarter.z, quarter.w);
    }
}

/* A half's bits (the low or the high 16 of a word) as a float: exact, every half is a float. */
__device__ inline float half_bits_to_float(unsigned int bits)
{
    return __half2float(__ushort_as_half((unsigned short)(bits & 0xffffu)));
}

/* A child's box from its three words: six halves widened to floats, where it is tested. */
__device__ inline void unpack_child_box(uint3 packed, struct spec_bvh_node *box)
{
    box->lo = spec_v3(half_bits_to_float(packed.x), half_bits_to_float(packed.x >> 16),
                      half_bits_to_float(packed.y));
    box->hi = spec_v3(half_bits_to_float(packed.y >> 16), half_bits_to_float(packed.z),
                      half_bits_to_float(packed.z >> 16));
}

/* What the walk would find, from where a walk whose stack is full stopped (its best t and sphere
 * so far): SPEC.md's loop over every sphere in file order, which meets ties in index order. Not
 * inlined: it is rarely called, and the walk keeps its registers. */
__device__ __noinline__ int every_sphere(const Scene *scene, enum search what, float3 origin,
                                         float3 direction, float a, float best, int hit,
                                         float *distance)
{
    for (int s = 0; s < scene->sphere_count; s++) {
        float3 oc;
        float c, t;
        if (what == NEAREST_FROM_CAMERA) {
            const float4 from_camera = __ldg(&scene->from_camera[s]);
            oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
            c = from_camera.w;
        } else {
            oc = from_sphere(origin, __ldg(&scene->geometry[s]), &c);
        }
        if (!has_intersection(oc, c, direction, a, &t)) {
            continue;
        }
        if (what == ANY_BLOCKER) {
            if (t > 1e-6f) {
                *distance = t;
                return s;
            }
        } else if (t < best || (t == best && hit >= 0 && s < hit)) {
            best = t;
            hit = s;
        }
    }
    *distance = best;
    return hit;
}

/* The ray's cone for a walk of hits up to t_max: spec_bvh_cone_for_walk with the root's two
 * children's boxes in place of the root's box. Only a ray with an axis it runs nearly parallel to (|d| at most the
 * slope: the cone drops the axis, its scales 0) needs the bound, up to where the ray's cone
 * leaves the later of them (or t_max), so that the axis culls too; for every other ray the bound
 * changes nothing, and the cone is made once. Where an axis gives no bound (NaN) there is none
 * but t_max. A root that is a leaf has no boxes to cull. */
__device__ inline struct spec_bvh_cone cone_of_walk(const Scene *scene,
                                                    struct spec_vec3 origin,
                                                    struct spec_vec3 direction, float t_max)
{
    const struct spec_bvh_cone unbounded = spec_bvh_cone_of_ray(origin, direction);
    const bool every_axis_bounds = unbounded.enter_scale[0] != 0.0f &&
                                   unbounded.enter_scale[1] != 0.0f &&
                                   unbounded.enter_scale[2] != 0.0f;
    if (scene->root < 0 || every_axis_bounds) {
        return unbounded;
    }
    int children[2];
    uint3 boxes[2];
    load_children(scene->nodes, scene->root, children, boxes);
    struct spec_bvh_node box;
    unpack_child_box(boxes[0], &box);
    const float leave_left = spec_bvh_cone_leave(&box, &unbounded);
    unpack_child_box(boxes[1], &box);
    const float leave_right = spec_bvh_cone_leave(&box, &unbounded);
    const float leave = leave_left != leave_left || leave_right != leave_right
                            ? INFINITY
                            : fmaxf(leave_left, leave_right);
    return spec_bvh_cone_of_ray_sloped(origin, direction, SPEC_BVH_CONE_SLOPE,
                                       fminf(t_max, leave));
}

/* Walks the tree for a ray (direction d, a = d.d): tests a node's two children, a leaf's sphere
 * at once, an inner node's box, held by its parent, for where the ray's cone enters it
 * (spec_bvh_cone_entry on the box widened at build time: the image's bits rest on the two,
 * common/spec_bvh.h); goes on to the nearer entered child, pushing the farther, or, with none
 * to take, to the nearest pending child the ray enters at or before the best t so far. The
 * nearest hit is the smallest (t, index), as SPEC.md's loop in file order finds it; a blocker
 * ends the walk. Returns the sphere (or -1) and its t in *distance. Inlined with `what` known,
 * each call keeps only its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    int hit = -1;
    Pending stack[TREE_STACK];
    int top = 0;
    /* The node whose children are tested next: the root, or for a sphere alone its leaf. */
    int current = scene->root;
    int children[2] = {scene->root, -1};
    uint3 boxes[2];
    int child_count = 1;
    if (current >= 0) {
        load_children(scene->nodes, current, children, boxes);
        child_count = 2;
    }
    for (;;) {
        /* The boxes first, then the spheres: a box's six floats are not kept alive through a
         * sphere's test. */
        float enter[2] = {INFINITY, INFINITY};
#pragma unroll
        for (int k = 0; k < 2; k++) {
            if (k < child_count && children[k] >= 0) {
                struct spec_bvh_node box;
                unpack_child_box(boxes[k], &box);
                enter[k] = spec_bvh_cone_entry(&box, &cone, best);
            }
        }
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const int child = children[k];
            if (k >= child_count || child >= 0) {
                continue;
            }
            float3 oc;
            float c, t;
            if (what == NEAREST_FROM_CAMERA) {
                const float4 from_camera = __ldg(&scene->leaf_from_camera[~child]);
                oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                c = from_camera.w;
            } else {
                oc = from_sphere(origin, __ldg(&scene->leaf_geometry[~child]), &c);
            }
            if (!has_intersection(oc, c, direction, a, &t)) {
                continue;
            }
            if (what == ANY_BLOCKER) {
                if (t > 1e-6f) {
                    *distance = t;
                    return __ldg(&scene->order[~child]);
                }
            } else if (t <= best) {
                /* Only now the sphere's index: it decides a tie. */
                const int s = __ldg(&scene->order[~child]);
                if (t < best || (hit >= 0 && s < hit)) {
                    best = t;
                    hit = s;
                }
            }
        }
        /* A tree deeper than the stack: the rest of the answer from every sphere. */
        if (top + 1 > TREE_STACK) {
            return every_sphere(scene, what, origin, direction, a, best, hit, distance);
        }
        /* The nearer entered child is taken next, straight from registers; only the farther
         * waits on the stack. A nearer child entered past the best t (a sphere of this node came
         * nearer) is dropped, and so is the farther, entered later still. */
        const bool right_nearer = enter[1] < enter[0];
        const float enter_far = right_nearer ? enter[0] : enter[1];
        const float enter_near = right_nearer ? enter[1] : enter[0];
        int next = -1;
        if (enter_near != INFINITY && !(enter_near > best)) {
            if (enter_far != INFINITY) {
                stack[top].node = right_nearer ? children[0] : children[1];
                stack[top++].enter = enter_far;
            }
            next = right_nearer ? children[1] : children[0];
        } else {
            /* The nearest pending child the ray still enters before the best t. */
            while (top > 0) {
                const Pending pending = stack[--top];
                if (!(pending.enter > best)) {
                    next = pending.node;
                    break;
                }
            }
        }
        if (next < 0) {
            break;
        }
        current = next;
        load_children(scene->nodes, current, children, boxes);
        child_count = 2;
    }
    *distance = best;
    return hit;
}

/* ---- the build: Morton codes, a radix sort, then rounds of merging nearest clusters -------- */

/* Floats as unsigned integers in the same order (negative floats' bits reversed), so that atomic
 * integer minimum and maximum give float ones. */
__device__ inline unsigned int ordered_bits(float f)
{
    const unsigned int bits = __float_as_uint(f);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

__device__ inline float from_ordered_bits(unsigned int bits)
{
    return __uint_as_float(bits & 0x80000000u ? bits & 0x7fffffffu : ~bits);
}

/* The box of the centres: each block reduces its spheres' centres, then six atomics. bounds[0..2]
 * hold the minimum's ordered bits, bounds[3..5] the maximum's (set to the extremes before). */
__global__ void centre_box_kernel(const float4 *geometry, int n, unsigned int *bounds)
{
    __shared__ unsigned int low[3], high[3];
    if (threadIdx.x < 3) {
        low[threadIdx.x] = 0xffffffffu;
        high[threadIdx.x] = 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 g = __ldg(&geometry[i]);
        atomicMin(&low[0], ordered_bits(g.x));
        atomicMin(&low[1], ordered_bits(g.y));
        atomicMin(&low[2], ordered_bits(g.z));
        atomicMax(&high[0], ordered_bits(g.x));
        atomicMax(&high[1], ordered_bits(g.y));
        atomicMax(&high[2], ordered_bits(g.z));
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        atomicMin(&bounds[threadIdx.x], low[threadIdx.x]);
        atomicMax(&bounds[3 + threadIdx.x], high[threadIdx.x]);
    }
}

/* 21 bits of v (0 .. 2^21 - 1) spread to every third bit of 63. */
__device__ inline unsigned long long spread_bits(unsigned long long v)
{
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* Each sphere's 63-bit Morton code: its centre in the box of the centres, on a 2^21-cell grid
 * per axis. 21 bits, not 10 in 30, because one sphere far from the rest stretches the box: the
 * benchmark's floor, centred 1,000 below the others, would leave them a grid of cells a unit
 * wide, and a tree that cannot tell them apart. */
__global__ void morton_kernel(const float4 *geometry, int n, const unsigned int *bounds,
                              unsigned long long *codes, int *indices)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float4 g = __ldg(&geometry[i]);
    const float centre[3] = {g.x, g.y, g.z};
    unsigned long long code = 0;
    for (int axis = 0; axis < 3; axis++) {
        const float lo = from_ordered_bits(bounds[axis]), hi = from_ordered_bits(bounds[3 + axis]);
        const float extent = hi - lo;
        /* A NaN or a flat axis goes to cell 0: a worse tree, never a wrong one. */
        float cell = extent > 0.0f ? (centre[axis] - lo) / extent * 2097152.0f : 0.0f;
        cell = fminf(fmaxf(cell, 0.0f), 2097151.0f);
        code |= spread_bits((unsigned long long)cell) << (2 - axis);
    }
    codes[i] = code;
    indices[i] = i;
}

/* A cluster of the build: a sphere's leaf (id ~c) or a node made so far (id >= 0), and its box. */
struct __align__(16) Cluster {
    float3 lo;
    int id;
    float3 hi;
    int unused;
};

/* How many clusters on either side, in Morton order, a cluster considers for its neighbour. */
#define SEARCH_RADIUS 16
/* Rounds of merging between two reads of the cluster count by the host. */
#define ROUNDS_PER_COUNT 3

/* Each leaf's two views of its sphere, copied into tree order, and its first cluster: the leaf
 * itself, in a box of centre +- radius (one thread per leaf). */
__global__ void leaf_kernel(const Sphere *spheres, const float4 *geometry, const float4 *from_camera,
                            const int *order, float4 *leaf_geometry, float4 *leaf_from_camera,
                            Cluster *clusters, int n)
{
    const int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n) {
        return;
    }
    const int s = __ldg(&order[leaf]);
    leaf_geometry[leaf] = __ldg(&geometry[s]);
    leaf_from_camera[leaf] = __ldg(&from_camera[s]);
    const Sphere sphere = spheres[s];
    const float3 r = make_float3(sphere.radius, sphere.radius, sphere.radius);
    /* The whole cluster, its padding word too: the rounds copy clusters whole, and a copy of a
     * word never written is what compute-sanitizer's initcheck reports. */
    Cluster cluster;
    cluster.lo = sub3(sphere.center, r);
    cluster.id = ~leaf;
    cluster.hi = add3(sphere.center, r);
    cluster.unused = 0;
    clusters[leaf] = cluster;
}

/* Half the surface area of the box around two boxes: what a ray pays to enter their union. A
 * NaN (overflowed coordinates) counts as the largest, so that every cluster has an order. */
__device__ inline float union_area(const Cluster *a, const Cluster *b)
{
    const float dx = fmaxf(a->hi.x, b->hi.x) - fminf(a->lo.x, b->lo.x);
    const float dy = fmaxf(a->hi.y, b->hi.y) - fminf(a->lo.y, b->lo.y);
    const float dz = fmaxf(a->hi.z, b->hi.z) - fminf(a->lo.z, b->lo.z);
    const float area = dx * dy + dy * dz + dz * dx;
    return area == area ? area : INFINITY;
}

/* Cluster i's nearest neighbour among the SEARCH_RADIUS on either side (of m clusters): the
 * least union area, and of equal areas the first in order. Some pair always picks each other
 * (the least area, lowest index), so every round merges at least one. */
__device__ inline int pick_nearest(const Cluster *clusters, int m, int i)
{
    const Cluster self = clusters[i];
    float least = INFINITY;
    int pick = -1;
    const int last = min(i + SEARCH_RADIUS, m - 1);
    for (int j = max(i - SEARCH_RADIUS, 0); j <= last; j++) {
        if (j == i) {
            continue;
        }
        const Cluster other = clusters[j];
        const float area = union_area(&self, &other);
        if (pick < 0 || area < least) {
            least = area;
            pick = j;
        }
    }
    return pick;
}

/* A cluster's box as a node stores it: widened by the cone test's ray-independent margin, then
 * rounded outward to halves, low planes down and high planes up, packed two a word. The cluster
 * keeps its exact box, so that unions are not widened twice. */
__device__ inline void widened_box(const Cluster *cluster, unsigned int packed[3])
{
    struct spec_bvh_node box;
    box.lo = spec_v3(cluster->lo.x, cluster->lo.y, cluster->lo.z);
    box.hi = spec_v3(cluster->hi.x, cluster->hi.y, cluster->hi.z);
    box.first = box.count = 0;
    box = spec_bvh_cone_widen_box(&box);
    const unsigned int planes[6] = {
        __half_as_ushort(__float2half_rd(box.lo.x)), __half_as_ushort(__float2half_rd(box.lo.y)),
        __half_as_ushort(__float2half_rd(box.lo.z)), __half_as_ushort(__float2half_ru(box.hi.x)),
        __half_as_ushort(__float2half_ru(box.hi.y)), __half_as_ushort(__float2half_ru(box.hi.z))};
    for (int w = 0; w < 3; w++) {
        packed[w] = planes[2 * w] | planes[2 * w + 1] << 16;
    }
}

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children, with their boxes widened (the walk reads children's boxes in the
 * parent), and the first cluster's slot becomes the node, in the union box. Nodes are numbered
 * down from n - 2, so the last, the root, is node 0. Returns whether slot i stays (the second of
 * a pair does not). */
__device__ inline bool merge_pair(Cluster *clusters, const int *nearest, int i, Node *nodes,
                                  unsigned int *merges, int n)
{
    const int j = nearest[i];
    if (j < 0 || nearest[j] != i) {
        return true;
    }
    if (j < i) {
        return false; /* merged by j */
    }
    const Cluster a = clusters[i], b = clusters[j];
    const int index = n - 2 - (int)atomicAdd(merges, 1u);
    Node *node = &nodes[index];
    node->left = a.id;
    widened_box(&a, node->left_box);
    node->right = b.id;
    widened_box(&b, node->right_box);
    clusters[i].lo = make_float3(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y), fminf(a.lo.z, b.lo.z));
    clusters[i].hi = make_float3(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y), fmaxf(a.hi.z, b.hi.z));
    clusters[i].id = index;
    return true;
}

/* A round over the whole GPU, in three launches: every cluster's nearest neighbour, the merges
 * (keep[] marks the clusters left; slots from the count up to upper, the host's bound on it,
 * are marked gone), then CUB's compaction. */
__global__ void nearest_kernel(const Cluster *clusters, const int *count, int *nearest)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = *count;
    if (i < m) {
        nearest[i] = pick_nearest(clusters, m, i);
    }
}

__global__ void merge_kernel(Cluster *clusters, const int *nearest, const int *count, Node *nodes,
                             unsigned int *merges, unsigned char *keep, int upper, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < upper) {
        keep[i] = i < *count && merge_pair(clusters, nearest, i, nodes, merges, n);
    }
}

/* The last rounds, once FINISH_CLUSTERS or fewer are left, in one block: the same steps with the
 * block's barriers between them and a block-wide prefix sum for the compaction, so that the many
 * rounds of a few clusters cost one launch, not three each and the host's reads of the count. */
#define FINISH_THREADS 1024
#define FINISH_PER_THREAD 4
#define FINISH_CLUSTERS (FINISH_THREADS * FINISH_PER_THREAD)
__global__ void __launch_bounds__(FINISH_THREADS)
    finish_kernel(Cluster *clusters, Cluster *survivors, int *nearest, const int *count,
                  Node *nodes, unsigned int *merges, int n)
{
    typedef cub::BlockScan<int, FINISH_THREADS> BlockScan;
    __shared__ typename BlockScan::TempStorage scan_storage;
    int m = *count;
    while (m > 1) {
        for (int i = threadIdx.x; i < m; i += FINISH_THREADS) {
            nearest[i] = pick_nearest(clusters, m, i);
        }
        __syncthreads();
        /* Each thread merges, then moves, FINISH_PER_THREAD consecutive slots. */
        const int first = threadIdx.x * FINISH_PER_THREAD;
        bool keep[FINISH_PER_THREAD];
        int kept = 0;
        for (int k = 0; k < FINISH_PER_THREAD; k++) {
            keep[k] = first + k < m && merge_pair(clusters, nearest, first + k, nodes, merges, n);
            kept += keep[k];
        }
        __syncthreads(); /* every merge written before any slot moves */
        int offset, total;
        BlockScan(scan_storage).ExclusiveSum(kept, offset, total);
        for (int k = 0; k < FINISH_PER_THREAD; k++) {
            if (keep[k]) {
                survivors[offset++] = clusters[first + k];
            }
        }
        __syncthreads(); /* every slot moved, and the scan's storage free, before the next round */
        Cluster *swap = clusters;
        clusters = survivors;
        survivors = swap;
        m = total;
    }
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ inline float shadow_factor(const Scene *scene, float3 origin, float3 direction)
{
    float t;
    return search_tree(scene, ANY_BLOCKER, origin, direction, dot3(direction, direction), &t) >= 0
               ? 0.35f
               : 1.0f;
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

/* Renders pixel (i, j). */
/* At most 256 threads a block, and five blocks an SM: 48 registers a thread (at six, 40 registers,
 * the code of this stage spills three times as much). An SM of compute capability 7.5 holds at
 * most 1,024 threads, so four blocks there. */
#define BLOCK_THREADS_MAX 256
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define BLOCKS_PER_SM_MIN 4
#else
#define BLOCKS_PER_SM_MIN 5
#endif
__device__ inline void render_pixel(unsigned char *framebuffer, const Scene *scene,
                                    const float *plane_x, const float *plane_y, int width,
                                    int height, int i, int j)
{
    const Sphere *spheres = scene->spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int pixel = j * width + i;

    const float x = plane_x[i];
    const float y = plane_y[j];
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int hit =
        search_tree(scene, NEAREST_FROM_CAMERA, origin, direction, dot3(direction, direction), &t);
    if (hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
        return;
    }

    const Sphere sphere_data = spheres[hit];
    const Sphere *sphere = &sphere_data;
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
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow = shadow_factor(scene, lifted, sub3(light->position, lifted));

    /* Reflection: what the mirrored light direction sees from the point. Normalised before the
     * walk: the boxes are entered in units of the direction the spheres are tested with. */
    float3 reflection;
    float t_reflection;
    const float3 reflected = normalize3(mirror);
    const int reflection_hit = search_tree(scene, NEAREST, lifted, reflected,
                                           dot3(reflected, reflected), &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere other_data = spheres[reflection_hit];
        const Sphere *other = &other_data;
        const float3 q = add3(lifted, scale3(t_reflection, reflected));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow = shadow_factor(scene, q_lifted, q_to_light);
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

/* A warp's pixels: an 8x4 tile, not a row of 32, wherever the block is made of whole tiles. */
#ifndef TILE_WIDTH
#define TILE_WIDTH 8
#define TILE_HEIGHT 4
#endif

/* Renders the rows first_row .. end_row - 1 of the image (one band): the block's row of blocks
 * (blockIdx.y counts from first_row), then every gridDim.y-th row of blocks below it. The block
 * covers blockDim.x x blockDim.y pixels as before, but each of its warps takes a tile of them:
 * warp w (threads 32w .. 32w + 31 in the order threadIdx.x, then threadIdx.y) the w-th tile,
 * across the block's row of tiles first, its lanes across the tile's rows. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (blockDim.x % TILE_WIDTH == 0 && blockDim.y % TILE_HEIGHT == 0) {
        const int thread = threadIdx.y * blockDim.x + threadIdx.x;
        const int lane = thread % 32, warp = thread / 32;
        const int tiles_across = blockDim.x / TILE_WIDTH;
        x = warp % tiles_across * TILE_WIDTH + lane % TILE_WIDTH;
        y = warp / tiles_across * TILE_HEIGHT + lane / TILE_WIDTH;
    }
    const int i = blockIdx.x * blockDim.x + x;
    if (i >= width) {
        return;
    }
    for (int j = first_row + blockIdx.y * blockDim.y + y; j < end_row;
         j += gridDim.y * blockDim.y) {
        render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j);
    }
}

/* ---- the host side: allocate, copy, launch, copy back, free; every phase timed ------------ */

/* The build's working memory on the GPU: the centres' box, the codes and indices before and
 * after the sort, CUB's scratch for the sort and for the compaction, and the clusters of the
 * rounds: two arrays taken in turns, each cluster's nearest neighbour and whether it stays, the
 * count left and the nodes made so far. */
struct build_buffers {
    unsigned int *bounds;                /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                        /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    Cluster *clusters[2];                /* n each */
    int *nearest;                        /* n */
    unsigned char *keep;                 /* n */
    int *count;                          /* 1: the clusters left */
    unsigned int *merges;                /* 1: the nodes made */
    void *select_scratch;
    size_t select_scratch_bytes;
};

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    Scene scene; /* device pointers */
    struct build_buffers build;
    int sphere_count;
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* The scene's arrays on the host, in pinned memory. */
struct host_scene {
    Sphere *spheres;
    float4 *geometry, *from_camera;
    int sphere_count;
};

/* The hierarchy, built on the GPU every frame (an interactive renderer's spheres move): the sort
 * and rounds of clustering on the default stream, which the bands' streams wait for; timed as
 * the build phase, up to the moment the GPU has finished it. */
static void build_tree(const struct frame_resources *frame, struct report *report)
{
    double start = timer_now_us();
    const int n = frame->sphere_count, threads = 256;
    const struct build_buffers *b = &frame->build;
    const unsigned int extremes[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0u, 0u, 0u};
    CUDA_CHECK(cudaMemcpyAsync(b->bounds, extremes, sizeof extremes, cudaMemcpyHostToDevice, 0));
    centre_box_kernel<<<min((n + threads - 1) / threads, 1024), threads>>>(frame->scene.geometry, n,
                                                                          b->bounds);
    CUDA_CHECK_LAUNCH("centre_box_kernel");
    morton_kernel<<<(n + threads - 1) / threads, threads>>>(frame->scene.geometry, n, b->bounds,
                                                           b->codes, b->indices);
    CUDA_CHECK_LAUNCH("morton_kernel");
    size_t scratch_bytes = b->sort_scratch_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b->sort_scratch, scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)frame->scene.order,
                                               n, 0, 63));
    CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortPairs");
    leaf_kernel<<<(n + threads - 1) / threads, threads>>>(
        frame->scene.spheres, frame->scene.geometry, frame->scene.from_camera, frame->scene.order,
        (float4 *)frame->scene.leaf_geometry, (float4 *)frame->scene.leaf_from_camera,
        b->clusters[0], n);
    CUDA_CHECK_LAUNCH("leaf_kernel");
    /* Rounds of merging until one cluster is left: over the whole GPU while many are left, the
     * launches sized by upper, the count the host last read (the count only falls; the kernels
     * read the true count on the GPU); the last rounds in one block. */
    CUDA_CHECK(cudaMemsetAsync(b->merges, 0, sizeof(unsigned int), 0));
    CUDA_CHECK(cudaMemcpyAsync(b->count, &n, sizeof n, cudaMemcpyHostToDevice, 0));
    Cluster *clusters = b->clusters[0], *survivors = b->clusters[1];
    int upper = n;
    while (upper > 1) {
        if (upper <= FINISH_CLUSTERS) {
            finish_kernel<<<1, FINISH_THREADS>>>(clusters, survivors, b->nearest, b->count,
                                                 (Node *)frame->scene.nodes, b->merges, n);
            CUDA_CHECK_LAUNCH("finish_kernel");
            break;
        }
        const int blocks = (upper + threads - 1) / threads;
        for (int round = 0; round < ROUNDS_PER_COUNT; round++) {
            nearest_kernel<<<blocks, threads>>>(clusters, b->count, b->nearest);
            CUDA_CHECK_LAUNCH("nearest_kernel");
            merge_kernel<<<blocks, threads>>>(clusters, b->nearest, b->count,
                                              (Node *)frame->scene.nodes, b->merges, b->keep,
                                              upper, n);
            CUDA_CHECK_LAUNCH("merge_kernel");
            size_t select_bytes = b->select_scratch_bytes;
            CUDA_CHECK(cub::DeviceSelect::Flagged(b->select_scratch, select_bytes, clusters,
                                                  b->keep, survivors, b->count, upper));
            CUDA_CHECK_LAUNCH("cub::DeviceSelect::Flagged");
            Cluster *swap = clusters;
            clusters = survivors;
            survivors = swap;
        }
        CUDA_CHECK(cudaMemcpy(&upper, b->count, sizeof upper, cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaStreamSynchronize(0));
    report_phase_since(report, PHASE_BUILD, start);
}

/* The scene to the GPU (an interactive renderer would change it between frames); returns the
 * bytes copied. The tree is made there. */
static size_t upload_scene(const struct host_scene *host, const Light *light, const Camera *camera,
                           const Scene *device)
{
    const size_t n = (size_t)host->sphere_count;
    CUDA_CHECK(cudaMemcpy((void *)device->spheres, host->spheres, n * sizeof(Sphere),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->geometry, host->geometry, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->from_camera, host->from_camera, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    return n * (sizeof(Sphere) + 2 * sizeof(float4)) + sizeof(Light) + sizeof(Camera);
}

/* Launches every band's kernel and copy on its stream; returns the number of bands. */
static int launch_bands(const struct frame_resources *frame, dim3 threads, int width, int height)
{
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    /* Recorded in the legacy default stream, which the streams created above wait for; so do
     * the image-plane tables, launched there too. */
    CUDA_CHECK(cudaEventRecord(frame->bands_start, 0));
    const int plane_threads = 256;
    plane_kernel<<<(width + height + plane_threads - 1) / plane_threads, plane_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
        const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
        dim3 blocks((width + threads.x - 1) / threads.x, 1);
        blocks.y = frame->resident_blocks / blocks.x + 1;
        blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
        render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->scene,
                                                      frame->plane_x, frame->plane_y, width,
                                                      height, first_row, end_row);
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
    SCENE_MAX_SPHERES,
    "the scene format's limit",
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
    const size_t n = (size_t)scene->sphere_count;

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
    struct host_scene host = {};
    host.sphere_count = scene->sphere_count;
    CUDA_CHECK(cudaMallocHost((void **)&host.spheres, n * sizeof(Sphere)));
    Sphere *spheres = host.spheres;
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
    CUDA_CHECK(cudaMallocHost((void **)&host.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&host.from_camera, n * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        host.geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y,
                                       spheres[s].center.z, radius_squared);
        host.from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
    }
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMalloc((void **)&frame.device_framebuffer, framebuffer_bytes));
    /* The tree: n - 1 inner nodes (at least one allocated), and the build's buffers. */
    frame.sphere_count = scene->sphere_count;
    frame.scene.root = scene->sphere_count > 1 ? 0 : ~0;
    frame.scene.sphere_count = scene->sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.spheres, n * sizeof(Sphere)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.from_camera, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.order, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.leaf_geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.leaf_from_camera, n * sizeof(float4)));
    struct build_buffers *b = &frame.build;
    CUDA_CHECK(cudaMalloc((void **)&b->bounds, 6 * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&b->codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->sorted_codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->indices, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[0], n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[1], n * sizeof(Cluster)));
    /* CUB's compaction loads whole tiles, the slots past the count too (it keeps none of them):
     * zeroed once here, so that no load reads memory never written (compute-sanitizer's
     * initcheck), at no cost per frame. */
    CUDA_CHECK(cudaMemset(b->clusters[0], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMemset(b->clusters[1], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->nearest, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->keep, n));
    CUDA_CHECK(cudaMalloc((void **)&b->count, sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->merges, sizeof(unsigned int)));
    b->sort_scratch = NULL;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b->sort_scratch_bytes, b->codes, b->sorted_codes,
                                               b->indices, (int *)frame.scene.order,
                                               scene->sphere_count, 0, 63));
    CUDA_CHECK(cudaMalloc(&b->sort_scratch, b->sort_scratch_bytes));
    b->select_scratch = NULL;
    CUDA_CHECK(cub::DeviceSelect::Flagged(NULL, b->select_scratch_bytes, b->clusters[0], b->keep,
                                          b->clusters[1], b->count, scene->sphere_count));
    CUDA_CHECK(cudaMalloc(&b->select_scratch, b->select_scratch_bytes));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_x, (size_t)width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_y, (size_t)height * sizeof(float)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame.copy_stream));
    int device, multiprocessors, blocks_per_multiprocessor;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_multiprocessor, render_kernel, job->block_x * job->block_y, 0));
    frame.resident_blocks = multiprocessors * blocks_per_multiprocessor;
    CUDA_CHECK(cudaEventCreate(&frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device += upload_scene(&host, light, camera, &frame.scene);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    build_tree(&frame, report);

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    int bands = launch_bands(&frame, threads, width, height);
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

    /* Steady state: frames 2..N reuse everything above, the tree built again each frame; each
     * is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
        report_init(&steady, report->stage);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            upload_scene(&host, light, camera, &frame.scene);
            build_tree(&frame, &steady);
            launch_bands(&frame, threads, width, height);
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
    CUDA_CHECK(cudaFree((void *)frame.scene.spheres));
    CUDA_CHECK(cudaFree((void *)frame.scene.geometry));
    CUDA_CHECK(cudaFree((void *)frame.scene.from_camera));
    CUDA_CHECK(cudaFree((void *)frame.scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame.scene.order));
    CUDA_CHECK(cudaFree((void *)frame.scene.leaf_geometry));
    CUDA_CHECK(cudaFree((void *)frame.scene.leaf_from_camera));
    CUDA_CHECK(cudaFree(frame.build.bounds));
    CUDA_CHECK(cudaFree(frame.build.codes));
    CUDA_CHECK(cudaFree(frame.build.sorted_codes));
    CUDA_CHECK(cudaFree(frame.build.indices));
    CUDA_CHECK(cudaFree(frame.build.sort_scratch));
    CUDA_CHECK(cudaFree(frame.build.clusters[0]));
    CUDA_CHECK(cudaFree(frame.build.clusters[1]));
    CUDA_CHECK(cudaFree(frame.build.nearest));
    CUDA_CHECK(cudaFree(frame.build.keep));
    CUDA_CHECK(cudaFree(frame.build.count));
    CUDA_CHECK(cudaFree(frame.build.merges));
    CUDA_CHECK(cudaFree(frame.build.select_scratch));
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
    CUDA_CHECK(cudaFreeHost(host.spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(host.geometry));
    CUDA_CHECK(cudaFreeHost(host.from_camera));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
