/*
 * Stage p09f, Morton sort (a side stage): block compaction by sorting on a Morton code (seed
 * 002, "StreamingSK with sorting", Z-sorting).
 *
 * p09e packs a block's live paths to the front of its slots in the order they had; here the
 * block sorts its paths by a 30-bit Morton (Z-order) code of their ray's origin, 10 bits an
 * axis in a box around the scene's small spheres, with CUB's BlockRadixSort, and an ended path
 * gets a key above every code, so that the sort compacts too: the live paths come first, paths
 * that start near each other in neighbouring slots (the same warp, likely the same surface).
 * Their state then moves through shared memory as in p09e, into the space the sort used. The
 * price: a radix sort of 31-bit keys (8 passes of 4 bits, each a block scan and an exchange
 * through shared memory) where p09e scanned one bit. Seed 002 found no gain.
 *
 * Builds on p09e-block-compaction.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_radix_sort.cuh>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */

/* The Morton code: 10 bits an axis, interleaved into 30; an ended path's key is above them all,
 * so the sort looks at 31 bits. */
#define MORTON_AXIS_BITS 10
#define MORTON_CELLS (1 << MORTON_AXIS_BITS) /* along each axis of the box */
#define MORTON_ENDED (1u << (3 * MORTON_AXIS_BITS))
#define SORT_BITS (3 * MORTON_AXIS_BITS + 1)
/* The box the origins are quantised in holds the camera and every sphere of at most this radius
 * (a ground or a dome much larger than the rest would squeeze the scene into a few cells)... */
#define MORTON_SMALL_RADIUS 10.0f
/* ... grown by this much each way, so that it reaches a ground a little below the spheres
 * (the benchmark's is 1.5 below the lowest row). Origins outside it go to its nearest face. */
#define MORTON_BOX_MARGIN 2.0f

const struct stage_info stage_info = {
    MAX_SPHERES,
    "its constant-memory arrays",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

__constant__ struct pt_sphere c_spheres[MAX_SPHERES];
__constant__ struct pt_material c_materials[MAX_SPHERES];

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

__device__ static struct hit closest_hit(struct ray ray, int sphere_count)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(c_spheres[s], ray.origin, ray.direction);
        if (t < hit.t) {
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
                                  struct spec_vec3 sky, int sphere_count, int max_depth)
{
    struct hit hit = closest_hit(path->ray, sphere_count);
    if (hit.sphere < 0) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, sky));
        return 0;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(c_materials[hit.sphere], c_spheres[hit.sphere], path->ray.origin,
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

/* The block's paths on their way to their new slots: one array per field, so that the 32 lanes
 * of a warp storing one field touch 32 different banks (whole structs, 12 words apart, would put
 * 4 lanes on each of 8 banks). */
struct path_slots {
    unsigned pixel[BLOCK_THREADS], frame[BLOCK_THREADS];
    int segment[BLOCK_THREADS];
    struct spec_vec3 origin[BLOCK_THREADS], direction[BLOCK_THREADS];
    struct spec_vec3 attenuation[BLOCK_THREADS];
};

__device__ static void stage_path(struct path_slots *slots, int slot, struct path path)
{
    slots->pixel[slot] = path.pixel;
    slots->frame[slot] = path.frame;
    slots->segment[slot] = path.segment;
    slots->origin[slot] = path.ray.origin;
    slots->direction[slot] = path.ray.direction;
    slots->attenuation[slot] = path.attenuation;
}

__device__ static struct path unstage_path(const struct path_slots *slots, int slot)
{
    struct path path;
    path.pixel = slots->pixel[slot];
    path.frame = slots->frame[slot];
    path.segment = slots->segment[slot];
    path.ray.origin = slots->origin[slot];
    path.ray.direction = slots->direction[slot];
    path.attenuation = slots->attenuation[slot];
    return path;
}

/* Where the origins are quantised: the box's low corner and its cells per unit along each axis. */
struct morton_box {
    struct spec_vec3 low, cells_per_unit;
};

/* The 10 low bits of v spread to every third bit of 30 (bit k to bit 3k): each multiply copies
 * the bits to a shifted place, each mask keeps the copies that land where they belong. */
__device__ static unsigned spread_bits(unsigned v)
{
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}

/* The cell along one axis, 0 to MORTON_CELLS - 1; outside the box, the nearest end. */
__device__ static unsigned morton_cell(float x, float low, float cells_per_unit)
{
    float cell = (x - low) * cells_per_unit;
    return (unsigned)fminf(fmaxf(cell, 0.0f), (float)(MORTON_CELLS - 1));
}

/* The Z-order code of a point: its three cells' bits interleaved, x highest. Near points have
 * near codes, mostly: the curve visits each octant of the box, then each of its octants... */
__device__ static unsigned morton_code(struct spec_vec3 point, struct morton_box box)
{
    unsigned x = morton_cell(point.x, box.low.x, box.cells_per_unit.x);
    unsigned y = morton_cell(point.y, box.low.y, box.cells_per_unit.y);
    unsigned z = morton_cell(point.z, box.low.z, box.cells_per_unit.z);
    return spread_bits(x) << 2 | spread_bits(y) << 1 | spread_bits(z);
}

/* One key (the code) and one value (the slot the path is in) a thread, sorted across the block. */
typedef cub::BlockRadixSort<unsigned, BLOCK_THREADS, 1, int> block_radix_sort;

/* What the block shares, on chip for the whole render: the sort's scratch space and the slots
 * the paths move through are never needed at once, so they share their bytes. */
struct block_sorting {
    union {
        block_radix_sort::TempStorage sort;
        struct path_slots slots;
    } space;
    unsigned long long first_new_path; /* the first of the paths the free slots take */
};

/* The block loops over three steps: sort its paths, the live ones first by their origin's code,
 * fill the free slots with new paths, extend every path by one segment. It leaves, all threads
 * at once, when it has no live path and the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct morton_box box, int sphere_count, int width, int height,
                                  int samples, int max_depth)
{
    __shared__ struct block_sorting shared;
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    int queue_empty = 0; /* thread 0's: the counter has passed the last path */
    for (;;) {
        /* Sorting: after it, thread t holds the t-th smallest key and the slot its path is in;
         * the live paths' keys come first. */
        unsigned key[1] = {active ? morton_code(path.ray.origin, box) : MORTON_ENDED};
        int from[1] = {(int)threadIdx.x};
        block_radix_sort(shared.space.sort).Sort(key, from, 0, SORT_BITS);
        int live = __syncthreads_count(active); /* a barrier too: the sort's space is free */
        if (active)
            stage_path(&shared.space.slots, (int)threadIdx.x, path);
        /* Regeneration: one atomic add takes a path for each of the free slots. */
        if (threadIdx.x == 0) {
            int free_slots = BLOCK_THREADS - live;
            unsigned long long first = total; /* none taken */
            if (free_slots > 0 && !queue_empty) {
                first = atomicAdd(next_path, (unsigned long long)free_slots);
                queue_empty = first + (unsigned long long)free_slots >= total;
            }
            shared.first_new_path = first;
        }
        __syncthreads(); /* the paths staged, the first new path known */
        unsigned long long first_new_path = shared.first_new_path;
        if (live == 0 && first_new_path >= total)
            return; /* the same values in every thread: the whole block leaves */
        int t = (int)threadIdx.x;
        if (t < live) {
            path = unstage_path(&shared.space.slots, from[0]);
            active = 1;
        } else {
            unsigned long long q = first_new_path + (unsigned long long)(t - live);
            active = q < total;
            if (active)
                path = start_path(q, width, height, camera);
        }
        __syncthreads(); /* every path read from the slots before the next sort writes there */
        if (active)
            active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}

/* What the kernel works on, on the GPU: the sums and the counter of paths handed out. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
};

static void paths_alloc(struct device_paths *d, int count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
}

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    return sphere_bytes + material_bytes;
}

/* The Morton box: the camera and the spheres of at most MORTON_SMALL_RADIUS, grown by
 * MORTON_BOX_MARGIN each way, cut into MORTON_CELLS along each axis. */
static struct morton_box origin_box(const struct pt_world *world)
{
    float low[3] = {world->camera.x, world->camera.y, world->camera.z};
    float high[3] = {world->camera.x, world->camera.y, world->camera.z};
    for (int s = 0; s < world->sphere_count; ++s) {
        struct pt_sphere sphere = world->spheres[s];
        if (sphere.radius > MORTON_SMALL_RADIUS)
            continue;
        float centre[3] = {sphere.centre.x, sphere.centre.y, sphere.centre.z};
        for (int a = 0; a < 3; ++a) {
            if (centre[a] - sphere.radius < low[a])
                low[a] = centre[a] - sphere.radius;
            if (centre[a] + sphere.radius > high[a])
                high[a] = centre[a] + sphere.radius;
        }
    }
    float cells[3];
    for (int a = 0; a < 3; ++a) {
        low[a] -= MORTON_BOX_MARGIN;
        high[a] += MORTON_BOX_MARGIN;
        cells[a] = (float)MORTON_CELLS / (high[a] - low[a]);
    }
    struct morton_box box;
    box.low = spec_v3(low[0], low[1], low[2]);
    box.cells_per_unit = spec_v3(cells[0], cells[1], cells[2]);
    return box;
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
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 origin_box(world), world->sphere_count,
                                                 job->width, job->height, job->samples,
                                                 job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(sums, d.sums, sum_bytes, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = sum_bytes;

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
