/*
 * Stage p15, a tree built by clustering: Morton order, then rounds of merging each cluster with
 * its nearest neighbour.
 *
 * p14's radix tree splits where a bit of the Morton codes changes, the middle of a cell of space,
 * not where the spheres leave a gap, and a large sphere's box spreads over its neighbours'; the
 * walk pays for every box a ray enters for nothing. Here the tree is built bottom up by locally
 * ordered clustering (PLOC: Meister and Bittner, 2018), as the main chain's stage 26 builds it:
 * the spheres sorted by Morton code as before, each a cluster; in a round every cluster picks,
 * among the SEARCH_RADIUS on either side in that order, the neighbour whose union box has the
 * least surface area (what a ray pays to enter it), two clusters that picked each other become a
 * node, and CUB's DeviceSelect::Flagged compacts the clusters left. Once FINISH_CLUSTERS or
 * fewer are left, one block does the remaining rounds. A clustered tree has no depth bound: a
 * walk whose stack would overflow finishes with the loop over every sphere.
 *
 * The image keeps its bits: the walk's rules are p14's ((t, index), boxes widened by
 * SPEC_BVH_REACH), and every box is the exact union of its spheres' centre +- radius.
 *
 * Builds on p14-gpu-build.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "gpu.h"
#include "host_pages.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128

const struct stage_info stage_info = {
    PT_SCENE_MAX_SPHERES,
    "the scene format",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

/* An inner node of the tree: its box, and its children, each an inner node (c >= 0) or the leaf
 * of sorted sphere ~c (c < 0). The root is node 0 (or, for a single sphere, the leaf ~0). */
struct tree_node {
    struct spec_vec3 lo;
    int left;
    struct spec_vec3 hi;
    int right;
};

/* The walk's stack: a depth-first walk holds at most one pending child a level, plus one. A
 * clustered tree has no depth bound (a chain of ever larger spheres can make it as deep as the
 * sphere count); a deeper one is walked as far as the stack allows, then finished by the loop
 * over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
#endif

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * tree (inner nodes, and the sphere indices in Morton order: leaf ~c is sphere order[c]). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct tree_node *nodes;
    const int *order;
    int root; /* 0, or ~0 for a scene of one sphere */
    int sphere_count;
};

struct ray {
    struct spec_vec3 origin, direction;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

/* A path in flight: which sample of which pixel, where it is, what it carries. */
struct path {
    unsigned pixel, frame;
    int segment;
    struct ray ray;
    struct spec_vec3 attenuation;
};

/* What the walk would find, from where a walk whose stack is full stopped (its best so far):
 * the loop over every sphere in file order, which meets ties in index order. Not inlined: it is
 * rarely called, and the walk keeps its registers. */
__device__ __noinline__ static struct hit every_sphere(struct ray ray,
                                                       const struct scene_on_gpu *scene,
                                                       struct hit hit)
{
    for (int s = 0; s < scene->sphere_count; ++s) {
        float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
        if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}

/* Walks the tree with a stack of children: an inner node whose box the ray cannot enter before
 * the best t so far is skipped with everything inside (spec_bvh_may_hit widens each box by what
 * rounding can reach: the image's bits rest on it); a leaf's sphere is tested, and a sphere wins
 * on (t, index), as the loop over every sphere in file order decides. */
__device__ static struct hit closest_hit(struct ray ray, const struct scene_on_gpu *scene)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(ray.direction);
    int stack[TREE_STACK];
    int top = 0;
    stack[top++] = scene->root;
    while (top > 0) {
        int child = stack[--top];
        if (child >= 0) {
            struct tree_node node = scene->nodes[child];
            struct spec_bvh_node box;
            box.lo = node.lo;
            box.hi = node.hi;
            if (spec_bvh_may_hit(&box, ray.origin, inverse, hit.t)) {
                /* A tree deeper than the stack: the rest of the answer from every sphere. */
                if (top + 2 > TREE_STACK)
                    return every_sphere(ray, scene, hit);
                stack[top++] = node.right;
                stack[top++] = node.left;
            }
            continue;
        }
        int s = scene->order[~child];
        float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
        if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}

/* Path q: its camera ray. */
__device__ static struct path start_path(unsigned long long q, int width, int height,
                                         struct spec_vec3 camera)
{
    unsigned long long pixels = (unsigned long long)width * (unsigned long long)height;
    struct path path;
    path.pixel = (unsigned)(q % pixels);
    path.frame = (unsigned)(q / pixels);
    path.segment = 0;
    pt_camera_ray(camera, width, height, (int)(path.pixel % (unsigned)width),
                  (int)(path.pixel / (unsigned)width), path.frame, &path.ray.origin,
                  &path.ray.direction);
    path.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    return path;
}

__device__ static void add_sample(unsigned long long *sums, unsigned pixel, struct spec_vec3 colour)
{
    atomicAdd(&sums[3 * (size_t)pixel + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)pixel + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)pixel + 2], (unsigned long long)pt_fixed(colour.z));
}

/* One segment of the path: returns 1 while it goes on; at its end adds what it brought back. */
__device__ static int extend_path(struct path *path, unsigned long long *sums,
                                  struct spec_vec3 sky, const struct scene_on_gpu *scene,
                                  int max_depth)
{
    struct hit hit = closest_hit(path->ray, scene);
    if (hit.sphere < 0) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, sky));
        return 0;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(scene->materials[hit.sphere], scene->spheres[hit.sphere], path->ray.origin,
                   path->ray.direction, hit.t, path->pixel, path->frame, path->segment, &scatter);
    if (scatter.event == PT_EMITTED) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, scatter.emitted));
        return 0;
    }
    /* Absorbed, or still going after the last segment: it brings nothing, nothing to add. */
    if (scatter.event == PT_ABSORBED || path->segment == max_depth - 1)
        return 0;
    path->attenuation = spec_mul(path->attenuation, scatter.attenuation);
    path->ray.origin = scatter.origin;
    path->ray.direction = scatter.direction;
    path->segment++;
    return 1;
}

/* Every thread loops: a thread without a path takes the next one, then every thread extends
 * its path by one segment. A thread leaves when the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct scene_on_gpu scene, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    for (;;) {
        if (!active) {
            unsigned long long q = atomicAdd(next_path, 1ULL);
            if (q >= total)
                return;
            path = start_path(q, width, height, camera);
            active = 1;
        }
        active = extend_path(&path, sums, sky, &scene, max_depth);
    }
}

/* ---- The build: Morton codes, a radix sort, then rounds of merging nearest clusters -------- */

/* Floats as unsigned integers in the same order (negative floats' bits reversed), so that atomic
 * integer minimum and maximum give float ones. */
__device__ static unsigned ordered_bits(float f)
{
    unsigned bits = __float_as_uint(f);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

__device__ static float from_ordered_bits(unsigned bits)
{
    return __uint_as_float(bits & 0x80000000u ? bits & 0x7fffffffu : ~bits);
}

/* The box of the centres: each block reduces its spheres' centres, then six atomics. bounds[0..2]
 * hold the minimum's ordered bits, bounds[3..5] the maximum's (set to the extremes before). */
__global__ void centre_box_kernel(const struct pt_sphere *spheres, int n, unsigned *bounds)
{
    __shared__ unsigned low[3], high[3];
    if (threadIdx.x < 3) {
        low[threadIdx.x] = 0xffffffffu;
        high[threadIdx.x] = 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        struct spec_vec3 c = spheres[i].centre;
        atomicMin(&low[0], ordered_bits(c.x));
        atomicMin(&low[1], ordered_bits(c.y));
        atomicMin(&low[2], ordered_bits(c.z));
        atomicMax(&high[0], ordered_bits(c.x));
        atomicMax(&high[1], ordered_bits(c.y));
        atomicMax(&high[2], ordered_bits(c.z));
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        atomicMin(&bounds[threadIdx.x], low[threadIdx.x]);
        atomicMax(&bounds[3 + threadIdx.x], high[threadIdx.x]);
    }
}

/* 21 bits of v (0 .. 2^21 - 1) spread to every third bit of 63. */
__device__ static unsigned long long spread_bits(unsigned long long v)
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
 * per axis (21 bits, not 10: the floor, centred 1,000 below the rest, stretches the box). */
__global__ void morton_kernel(const struct pt_sphere *spheres, int n, const unsigned *bounds,
                              unsigned long long *codes, int *indices)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    struct spec_vec3 c = spheres[i].centre;
    float centre[3] = {c.x, c.y, c.z};
    unsigned long long code = 0;
    for (int axis = 0; axis < 3; ++axis) {
        float lo = from_ordered_bits(bounds[axis]), hi = from_ordered_bits(bounds[3 + axis]);
        float extent = hi - lo;
        /* A NaN or a flat axis goes to cell 0: a worse tree, never a wrong one. */
        float cell = extent > 0.0f ? (centre[axis] - lo) / extent * 2097152.0f : 0.0f;
        cell = fminf(fmaxf(cell, 0.0f), 2097151.0f);
        code |= spread_bits((unsigned long long)cell) << (2 - axis);
    }
    codes[i] = code;
    indices[i] = i;
}

/* A cluster of the build: a sphere's leaf (id ~c, c its place in Morton order) or a node made so
 * far (id >= 0), and its box. */
struct cluster {
    struct spec_vec3 lo;
    int id;
    struct spec_vec3 hi;
    int unused;
};

/* How many clusters on either side, in Morton order, a cluster considers for its neighbour. */
#define SEARCH_RADIUS 16
/* Rounds of merging between two reads of the cluster count by the host. */
#define ROUNDS_PER_COUNT 3

/* Each leaf's first cluster: the leaf itself, in a box of its sphere's centre +- radius (as
 * common/bvh.c boxes a sphere), one thread per leaf. */
__global__ void leaf_kernel(const struct pt_sphere *spheres, const int *order,
                            struct cluster *clusters, int n)
{
    int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n)
        return;
    struct pt_sphere sphere = spheres[order[leaf]];
    struct spec_vec3 r = spec_v3(sphere.radius, sphere.radius, sphere.radius);
    /* The whole cluster, its padding word too: the rounds copy clusters whole, and a copy of a
     * word never written is what compute-sanitizer's initcheck reports. */
    struct cluster c;
    c.lo = spec_sub(sphere.centre, r);
    c.id = ~leaf;
    c.hi = spec_add(sphere.centre, r);
    c.unused = 0;
    clusters[leaf] = c;
}

/* Half the surface area of the box around two boxes: what a ray pays to enter their union. A
 * NaN (overflowed coordinates) counts as the largest, so that every cluster has an order. */
__device__ static float union_area(const struct cluster *a, const struct cluster *b)
{
    float dx = fmaxf(a->hi.x, b->hi.x) - fminf(a->lo.x, b->lo.x);
    float dy = fmaxf(a->hi.y, b->hi.y) - fminf(a->lo.y, b->lo.y);
    float dz = fmaxf(a->hi.z, b->hi.z) - fminf(a->lo.z, b->lo.z);
    float area = dx * dy + dy * dz + dz * dx;
    return area == area ? area : INFINITY;
}

/* Cluster i's nearest neighbour among the SEARCH_RADIUS on either side (of m clusters): the
 * least union area, and of equal areas the first in order. Some pair always picks each other
 * (the least area, lowest index), so every round merges at least one. */
__device__ static int pick_nearest(const struct cluster *clusters, int m, int i)
{
    struct cluster self = clusters[i];
    float least = INFINITY;
    int pick = -1;
    int last = min(i + SEARCH_RADIUS, m - 1);
    for (int j = max(i - SEARCH_RADIUS, 0); j <= last; ++j) {
        if (j == i)
            continue;
        struct cluster other = clusters[j];
        float area = union_area(&self, &other);
        if (pick < 0 || area < least) {
            least = area;
            pick = j;
        }
    }
    return pick;
}

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children and their union as its box, and the first cluster's slot becomes the
 * node. Nodes are numbered down from n - 2, so the last, the root, is node 0. Returns whether
 * slot i stays (the second of a pair does not). */
__device__ static int merge_pair(struct cluster *clusters, const int *nearest, int i,
                                 struct tree_node *nodes, unsigned *merges, int n)
{
    int j = nearest[i];
    if (j < 0 || nearest[j] != i)
        return 1;
    if (j < i)
        return 0; /* merged by j */
    struct cluster a = clusters[i], b = clusters[j];
    int index = n - 2 - (int)atomicAdd(merges, 1u);
    struct spec_vec3 lo = spec_v3(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y),
                                  fminf(a.lo.z, b.lo.z));
    struct spec_vec3 hi = spec_v3(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y),
                                  fmaxf(a.hi.z, b.hi.z));
    struct tree_node *node = &nodes[index];
    node->lo = lo;
    node->left = a.id;
    node->hi = hi;
    node->right = b.id;
    clusters[i].lo = lo;
    clusters[i].hi = hi;
    clusters[i].id = index;
    return 1;
}

/* A round over the whole GPU, in three launches: every cluster's nearest neighbour, the merges
 * (keep[] marks the clusters left; slots from the count up to upper, the host's bound on it,
 * are marked gone), then CUB's compaction. */
__global__ void nearest_kernel(const struct cluster *clusters, const int *count, int *nearest)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = *count;
    if (i < m)
        nearest[i] = pick_nearest(clusters, m, i);
}

__global__ void merge_kernel(struct cluster *clusters, const int *nearest, const int *count,
                             struct tree_node *nodes, unsigned *merges, unsigned char *keep,
                             int upper, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < upper)
        keep[i] = i < *count && merge_pair(clusters, nearest, i, nodes, merges, n);
}

/* The last rounds, once FINISH_CLUSTERS or fewer are left, in one block: the same steps with the
 * block's barriers between them and a block-wide prefix sum for the compaction, so that the many
 * rounds of a few clusters cost one launch, not three each and the host's reads of the count. */
#define FINISH_THREADS 1024
#define FINISH_PER_THREAD 4
#define FINISH_CLUSTERS (FINISH_THREADS * FINISH_PER_THREAD)
__global__ void __launch_bounds__(FINISH_THREADS)
    finish_kernel(struct cluster *clusters, struct cluster *survivors, int *nearest,
                  const int *count, struct tree_node *nodes, unsigned *merges, int n)
{
    typedef cub::BlockScan<int, FINISH_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_storage;
    int m = *count;
    while (m > 1) {
        for (int i = threadIdx.x; i < m; i += FINISH_THREADS)
            nearest[i] = pick_nearest(clusters, m, i);
        __syncthreads();
        /* Each thread merges, then moves, FINISH_PER_THREAD consecutive slots. */
        int first = threadIdx.x * FINISH_PER_THREAD;
        int keep[FINISH_PER_THREAD];
        int kept = 0;
        for (int k = 0; k < FINISH_PER_THREAD; ++k) {
            keep[k] = first + k < m && merge_pair(clusters, nearest, first + k, nodes, merges, n);
            kept += keep[k];
        }
        __syncthreads(); /* every merge written before any slot moves */
        int offset, total;
        block_scan(scan_storage).ExclusiveSum(kept, offset, total);
        for (int k = 0; k < FINISH_PER_THREAD; ++k)
            if (keep[k])
                survivors[offset++] = clusters[first + k];
        __syncthreads(); /* every slot moved, and the scan's storage free, before the next round */
        struct cluster *swap = clusters;
        clusters = survivors;
        survivors = swap;
        m = total;
    }
}

/* Channel c of the image from its sum: what the host did in p09 (pt_render_job_sums_ready). */
__global__ void resolve_kernel(unsigned char *rgb, const unsigned long long *sums,
                               size_t channels, int samples)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < channels)
        rgb[c] = pt_pixel_channel(sums[c], samples);
}

/* What the build works with besides the tree: the centres' box, the codes and their sorted
 * copy, the sort's indices and scratch, and the clusters of the rounds: two arrays taken in
 * turns, each cluster's nearest neighbour and whether it stays, the count left, the nodes made so
 * far, and CUB's scratch for the compaction. */
struct build_buffers {
    unsigned *bounds;                         /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                             /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    struct cluster *clusters[2]; /* n each */
    int *nearest;                /* n */
    unsigned char *keep;         /* n */
    int *count;                  /* 1: the clusters left */
    unsigned *merges;            /* 1: the nodes made */
    void *select_scratch;
    size_t select_scratch_bytes;
};

/* What the kernels work on, on the GPU: the sums, the counter of paths handed out, the 8-bit
 * image made from the sums, the scene with its tree, and what the build needs. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
    unsigned char *rgb; /* 3 per pixel */
    struct scene_on_gpu scene;
    struct build_buffers build;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->rgb, (size_t)count * 3));
    size_t n = (size_t)sphere_count;
    size_t inner = n > 1 ? n - 1 : 1;
    CUDA_CHECK(cudaMalloc((void **)&d->scene.spheres, n * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.materials, n * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.nodes, inner * sizeof(struct tree_node)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.order, n * sizeof(int)));
    d->scene.root = sphere_count > 1 ? 0 : ~0;
    d->scene.sphere_count = sphere_count;
    struct build_buffers *b = &d->build;
    CUDA_CHECK(cudaMalloc((void **)&b->bounds, 6 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&b->codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->sorted_codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->indices, n * sizeof(int)));
    /* Zeroed once: CUB's compaction loads whole tiles, slots past the count that no round has
     * written included (it never keeps them), and initcheck reports a load never written. */
    for (int k = 0; k < 2; ++k) {
        CUDA_CHECK(cudaMalloc((void **)&b->clusters[k], n * sizeof(struct cluster)));
        CUDA_CHECK(cudaMemset(b->clusters[k], 0, n * sizeof(struct cluster)));
    }
    CUDA_CHECK(cudaMalloc((void **)&b->nearest, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->keep, n));
    CUDA_CHECK(cudaMalloc((void **)&b->count, sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->merges, sizeof(unsigned)));
    b->sort_scratch = NULL;
    b->sort_scratch_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b->sort_scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)d->scene.order,
                                               sphere_count, 0, 63));
    CUDA_CHECK(cudaMalloc(&b->sort_scratch, b->sort_scratch_bytes));
    b->select_scratch = NULL;
    b->select_scratch_bytes = 0;
    CUDA_CHECK(cub::DeviceSelect::Flagged(NULL, b->select_scratch_bytes, b->clusters[0], b->keep,
                                          b->clusters[1], b->count, sphere_count));
    CUDA_CHECK(cudaMalloc(&b->select_scratch, b->select_scratch_bytes));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
    CUDA_CHECK(cudaFree(d->rgb));
    CUDA_CHECK(cudaFree((void *)d->scene.spheres));
    CUDA_CHECK(cudaFree((void *)d->scene.materials));
    CUDA_CHECK(cudaFree((void *)d->scene.nodes));
    CUDA_CHECK(cudaFree((void *)d->scene.order));
    struct build_buffers *b = &d->build;
    CUDA_CHECK(cudaFree(b->bounds));
    CUDA_CHECK(cudaFree(b->codes));
    CUDA_CHECK(cudaFree(b->sorted_codes));
    CUDA_CHECK(cudaFree(b->indices));
    CUDA_CHECK(cudaFree(b->clusters[0]));
    CUDA_CHECK(cudaFree(b->clusters[1]));
    CUDA_CHECK(cudaFree(b->nearest));
    CUDA_CHECK(cudaFree(b->keep));
    CUDA_CHECK(cudaFree(b->count));
    CUDA_CHECK(cudaFree(b->merges));
    CUDA_CHECK(cudaFree(b->sort_scratch));
    CUDA_CHECK(cudaFree(b->select_scratch));
}

/* The scene in; returns the bytes copied. The tree is made on the GPU. */
static size_t paths_upload_scene(const struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpy((void *)d->scene.spheres, world->spheres, sphere_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.materials, world->materials, material_bytes,
                          cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes;
}

/* The tree, built on the GPU on the default stream: the sort, then rounds of clustering; timed as
 * the build phase, up to the moment the GPU has finished it. */
static void build_tree(const struct device_paths *d, int n, struct report *report)
{
    double start = timer_now_us();
    const int threads = 256;
    const struct build_buffers *b = &d->build;
    const unsigned extremes[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0u, 0u, 0u};
    CUDA_CHECK(cudaMemcpy(b->bounds, extremes, sizeof extremes, cudaMemcpyHostToDevice));
    int blocks = (n + threads - 1) / threads;
    centre_box_kernel<<<blocks < 1024 ? blocks : 1024, threads>>>(d->scene.spheres, n, b->bounds);
    CUDA_CHECK_LAUNCH("centre_box_kernel");
    morton_kernel<<<blocks, threads>>>(d->scene.spheres, n, b->bounds, b->codes, b->indices);
    CUDA_CHECK_LAUNCH("morton_kernel");
    size_t scratch_bytes = b->sort_scratch_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b->sort_scratch, scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)d->scene.order,
                                               n, 0, 63));
    CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortPairs");
    leaf_kernel<<<blocks, threads>>>(d->scene.spheres, d->scene.order, b->clusters[0], n);
    CUDA_CHECK_LAUNCH("leaf_kernel");
    /* Rounds of merging until one cluster is left: over the whole GPU while many are left, the
     * launches sized by upper, the count the host last read (the count only falls; the kernels
     * read the true count on the GPU); the last rounds in one block. */
    CUDA_CHECK(cudaMemset(b->merges, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(b->count, &n, sizeof n, cudaMemcpyHostToDevice));
    struct tree_node *nodes = (struct tree_node *)d->scene.nodes;
    struct cluster *clusters = b->clusters[0], *survivors = b->clusters[1];
    int upper = n;
    while (upper > 1) {
        if (upper <= FINISH_CLUSTERS) {
            finish_kernel<<<1, FINISH_THREADS>>>(clusters, survivors, b->nearest, b->count, nodes,
                                                 b->merges, n);
            CUDA_CHECK_LAUNCH("finish_kernel");
            break;
        }
        int round_blocks = (upper + threads - 1) / threads;
        for (int round = 0; round < ROUNDS_PER_COUNT; ++round) {
            nearest_kernel<<<round_blocks, threads>>>(clusters, b->count, b->nearest);
            CUDA_CHECK_LAUNCH("nearest_kernel");
            merge_kernel<<<round_blocks, threads>>>(clusters, b->nearest, b->count, nodes,
                                                    b->merges, b->keep, upper, n);
            CUDA_CHECK_LAUNCH("merge_kernel");
            size_t select_bytes = b->select_scratch_bytes;
            CUDA_CHECK(cub::DeviceSelect::Flagged(b->select_scratch, select_bytes, clusters,
                                                  b->keep, survivors, b->count, upper));
            CUDA_CHECK_LAUNCH("cub::DeviceSelect::Flagged");
            struct cluster *swap = clusters;
            clusters = survivors;
            survivors = swap;
        }
        CUDA_CHECK(cudaMemcpy(&upper, b->count, sizeof upper, cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    report_phase_since(report, PHASE_BUILD, start);
}

/* As many blocks as the GPU holds at once: every thread resident for the whole render. */
static int resident_blocks(const void *kernel)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK_THREADS, 0));
    return sms * (per_sm > 0 ? per_sm : 1);
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t channels = (size_t)count * 3;

    double start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->sphere_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    build_tree(&d, world->sphere_count, report);

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 d.scene, job->width, job->height,
                                                 job->samples, job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
    int resolve_blocks = (int)((channels + BLOCK_THREADS - 1) / BLOCK_THREADS);
    resolve_kernel<<<resolve_blocks, BLOCK_THREADS>>>(d.rgb, d.sums, channels, job->samples);
    CUDA_CHECK_LAUNCH("resolve_kernel");
    kernel_timer_launches_done(&timer); /* kernel_events: the GPU's work, not the host's below */

    /* While the GPU renders: the image's pages (p11's host allocation), each step timed. */
    start = timer_now_us();
    size_t rgb_mapped_bytes;
    unsigned char *rgb = (unsigned char *)host_pages_map(channels, &rgb_mapped_bytes);
    if (!rgb) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the 8-bit image (%zu bytes) failed\n",
                cuda_check_program, channels);
        exit(1);
    }
    double now = timer_now_us();
    report_metric(report, "host_map", now - start, "us");
    start = now;
    host_pages_touch(rgb, rgb_mapped_bytes, 0);
    now = timer_now_us();
    report_metric(report, "host_touch", now - start, "us");
    start = now;
    CUDA_CHECK(cudaHostRegister(rgb, rgb_mapped_bytes, cudaHostRegisterDefault));
    report_metric(report, "host_register", timer_now_us() - start, "us");
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(rgb, d.rgb, channels, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = channels;

    pt_render_job_frame_ready_rgb8(job, rgb);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(rgb));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(rgb, rgb_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
}
