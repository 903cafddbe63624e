/*
 * Stage p14, the hierarchy built on the GPU: Morton codes, a radix sort, Karras' tree, boxes
 * from the leaves up.
 *
 * p13 builds its tree on the host, top down by the surface area heuristic: 26 ms for 10,000
 * spheres and 310 ms for 100,000 on the H100, ten times its render. Here the tree is built on
 * the GPU in five passes, as the main chain's stage 23 does: the box of the spheres' centres
 * (a reduction with atomics), each sphere's 63-bit Morton code in that box, CUB's radix sort of
 * the codes, Karras' (2012) radix tree over the sorted codes (one thread per inner node, ties
 * broken by index), and the boxes fitted from the leaves up (one thread per leaf; at each node
 * the second thread to arrive joins the two children's boxes and climbs on). The tree has a leaf
 * per sphere and n - 1 inner nodes; the walk reads both children from the node.
 *
 * The image keeps its bits: the walk's rules are p13's ((t, index), boxes widened by
 * SPEC_BVH_REACH), and every box holds its spheres' centre +- radius as the host build's does.
 *
 * Builds on p13-bvh-traversal.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

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

/* Sorted keys are 63 bits of Morton code and, between equal codes, 17 bits of index
 * (100,000 < 2^17): at most 81 levels, and a depth-first walk holds at most one entry a level,
 * plus one. */
#define TREE_STACK 82

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * tree (inner nodes, and the sphere indices in Morton order: leaf ~c is sphere order[c]). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct tree_node *nodes;
    const int *order;
    int root; /* 0, or ~0 for a scene of one sphere */
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

/* ---- The build: Morton codes, a radix sort, Karras' tree, boxes from the leaves up ---------- */

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

/* The length of the common prefix of sorted keys i and j, the index breaking ties between equal
 * codes (so every key differs); -1 for j outside 0..n-1. */
__device__ static int common_prefix(const unsigned long long *codes, int n, int i, int j)
{
    if (j < 0 || j >= n)
        return -1;
    unsigned long long a = codes[i], b = codes[j];
    return a != b ? __clzll(a ^ b) : 64 + __clz((unsigned)i ^ (unsigned)j);
}

/* Karras' construction, one thread per inner node i: the direction its range grows from i, the
 * range's other end, and the split where the prefix changes; its children are the nodes (or
 * leaves) on either side of the split. Each child's parent is noted for the fit. */
__global__ void karras_kernel(const unsigned long long *codes, int n, struct tree_node *nodes,
                              int *node_parent, int *leaf_parent)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1)
        return;
    if (i == 0)
        node_parent[0] = -1; /* the root: where the fit stops */
    int d = common_prefix(codes, n, i, i + 1) - common_prefix(codes, n, i, i - 1) > 0 ? 1 : -1;
    int delta_min = common_prefix(codes, n, i, i - d);
    int length_max = 2;
    while (common_prefix(codes, n, i, i + length_max * d) > delta_min)
        length_max *= 2;
    int length = 0;
    for (int step = length_max / 2; step >= 1; step /= 2)
        if (common_prefix(codes, n, i, i + (length + step) * d) > delta_min)
            length += step;
    int j = i + length * d;
    int delta_node = common_prefix(codes, n, i, j);
    int split = 0;
    for (int step = (length + 1) / 2;; step = (step + 1) / 2) {
        if (split + step < length && common_prefix(codes, n, i, i + (split + step) * d) > delta_node)
            split += step;
        if (step == 1)
            break;
    }
    int gamma = i + split * d + min(d, 0);
    int first = min(i, j), last = max(i, j);
    int left = first == gamma ? ~gamma : gamma;
    int right = last == gamma + 1 ? ~(gamma + 1) : gamma + 1;
    nodes[i].left = left;
    nodes[i].right = right;
    if (left < 0)
        leaf_parent[~left] = i;
    else
        node_parent[left] = i;
    if (right < 0)
        leaf_parent[~right] = i;
    else
        node_parent[right] = i;
}

/* A child's box: an inner node's, read past the cache (another thread wrote it), or a leaf's
 * sphere's, centre +- radius (as common/bvh.c boxes a sphere). */
__device__ static void child_box(const struct scene_on_gpu *scene, const struct tree_node *nodes,
                                 int child, struct spec_vec3 *lo, struct spec_vec3 *hi)
{
    if (child >= 0) {
        const volatile struct tree_node *node = &nodes[child];
        *lo = spec_v3(node->lo.x, node->lo.y, node->lo.z);
        *hi = spec_v3(node->hi.x, node->hi.y, node->hi.z);
        return;
    }
    struct pt_sphere sphere = scene->spheres[scene->order[~child]];
    struct spec_vec3 r = spec_v3(sphere.radius, sphere.radius, sphere.radius);
    *lo = spec_sub(sphere.centre, r);
    *hi = spec_add(sphere.centre, r);
}

/* The boxes from the leaves up, one thread per leaf: at each parent the first thread to arrive
 * (its counter was 0) stops; the second finds both children ready, joins their boxes and climbs
 * on, to the root. */
__global__ void fit_kernel(struct scene_on_gpu scene, struct tree_node *nodes,
                           const int *node_parent, const int *leaf_parent, unsigned *arrivals,
                           int n)
{
    int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n || n < 2)
        return;
    int node = leaf_parent[leaf];
    while (node >= 0) {
        __threadfence(); /* this thread's boxes are seen before its arrival */
        if (atomicAdd(&arrivals[node], 1u) == 0)
            return;
        __threadfence();
        struct spec_vec3 left_lo, left_hi, right_lo, right_hi;
        child_box(&scene, nodes, nodes[node].left, &left_lo, &left_hi);
        child_box(&scene, nodes, nodes[node].right, &right_lo, &right_hi);
        nodes[node].lo = spec_v3(fminf(left_lo.x, right_lo.x), fminf(left_lo.y, right_lo.y),
                                 fminf(left_lo.z, right_lo.z));
        nodes[node].hi = spec_v3(fmaxf(left_hi.x, right_hi.x), fmaxf(left_hi.y, right_hi.y),
                                 fmaxf(left_hi.z, right_hi.z));
        node = node_parent[node];
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
 * copy, the sort's indices and scratch, each node's and leaf's parent, the fit's counters. */
struct build_buffers {
    unsigned *bounds;                         /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                             /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    int *node_parent, *leaf_parent; /* n - 1 and n */
    unsigned *arrivals;             /* n - 1 */
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
    struct build_buffers *b = &d->build;
    CUDA_CHECK(cudaMalloc((void **)&b->bounds, 6 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&b->codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->sorted_codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->indices, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->node_parent, inner * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->leaf_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->arrivals, inner * sizeof(unsigned)));
    b->sort_scratch = NULL;
    b->sort_scratch_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b->sort_scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)d->scene.order,
                                               sphere_count, 0, 63));
    CUDA_CHECK(cudaMalloc(&b->sort_scratch, b->sort_scratch_bytes));
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
    CUDA_CHECK(cudaFree(b->node_parent));
    CUDA_CHECK(cudaFree(b->leaf_parent));
    CUDA_CHECK(cudaFree(b->arrivals));
    CUDA_CHECK(cudaFree(b->sort_scratch));
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

/* The tree, built on the GPU in five passes on the default stream: timed as the build phase, up
 * to the moment the GPU has finished it. */
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
    if (n > 1) {
        CUDA_CHECK(cudaMemset(b->arrivals, 0, (size_t)(n - 1) * sizeof(unsigned)));
        karras_kernel<<<(n - 1 + threads - 1) / threads, threads>>>(
            b->sorted_codes, n, (struct tree_node *)d->scene.nodes, b->node_parent,
            b->leaf_parent);
        CUDA_CHECK_LAUNCH("karras_kernel");
        fit_kernel<<<blocks, threads>>>(d->scene, (struct tree_node *)d->scene.nodes,
                                        b->node_parent, b->leaf_parent, b->arrivals, n);
        CUDA_CHECK_LAUNCH("fit_kernel");
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
