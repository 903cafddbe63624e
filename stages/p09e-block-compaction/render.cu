/*
 * Stage p09e, block compaction (a side stage): tiled block compaction (seed 002,
 * "StreamingSK").
 *
 * In p09 a thread whose path has ended takes the next one at once, on its own: a warp soon holds
 * paths of every depth side by side, new primary rays among old bounces, and every new path
 * costs an atomic add. Here each block keeps BLOCK_THREADS path slots and, after every segment,
 * compacts its live paths to the front of them: a block-wide exclusive scan of the "still going"
 * flags, written by hand (a scan in each warp with shuffles, the warps' totals through shared
 * memory, a scan of those), gives each live path its new slot; its state moves there through
 * shared memory; and the free slots at the end take new paths from the global counter, one
 * atomic add per block for all of them. Warps stay full of live paths and the new paths start
 * together. The price: three barriers a segment, and at the first the block waits for its
 * slowest warp.
 *
 * Builds on p09-path-regeneration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
#define WARP_THREADS 32
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)
#define FULL_WARP 0xffffffffu /* every lane takes part in the shuffles */
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */

/* The block scan's second level is one warp scanning the warps' totals. */
#if BLOCK_THREADS % WARP_THREADS != 0 || BLOCK_WARPS > WARP_THREADS
#error "BLOCK_THREADS must be whole warps, at most 32 of them"
#endif

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

/* What the block shares: about 6 KiB, on chip for the whole render. */
struct block_compaction {
    struct path_slots slots;
    int warp_offsets[BLOCK_WARPS];     /* each warp's count of live paths, then those before it */
    int live;                          /* the block's live paths */
    unsigned long long first_new_path; /* the first of the paths the free slots take */
};

/* How many threads before this one in the block have `flag` set (an exclusive prefix sum), and
 * in *total how many in all. Two levels: each warp scans its 32 flags in registers, then one
 * warp scans the warps' totals through shared memory. Every thread of the block must call it:
 * it holds two barriers. */
__device__ static int block_exclusive_scan(int flag, struct block_compaction *shared, int *total)
{
    int lane = (int)threadIdx.x % WARP_THREADS, warp = (int)threadIdx.x / WARP_THREADS;
    /* Level 1: after the step with offset k each lane holds the sum of the 2k lanes ending at
     * it (Hillis and Steele); 5 shuffles, no shared memory, no barrier. */
    int inclusive = flag;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        int before = __shfl_up_sync(FULL_WARP, inclusive, offset);
        if (lane >= offset)
            inclusive += before;
    }
    if (lane == WARP_THREADS - 1)
        shared->warp_offsets[warp] = inclusive; /* the warp's total */
    __syncthreads(); /* every warp's total written */
    /* Level 2: warp 0 scans the BLOCK_WARPS totals the same way (the whole warp shuffles; lanes
     * past the last warp carry 0). Each warp's offset is the sum of the totals before it. */
    if (warp == 0) {
        int warp_total = lane < BLOCK_WARPS ? shared->warp_offsets[lane] : 0;
        int running = warp_total;
        for (int offset = 1; offset < BLOCK_WARPS; offset *= 2) {
            int before = __shfl_up_sync(FULL_WARP, running, offset);
            if (lane >= offset)
                running += before;
        }
        if (lane < BLOCK_WARPS)
            shared->warp_offsets[lane] = running - warp_total;
        if (lane == BLOCK_WARPS - 1)
            shared->live = running;
    }
    __syncthreads(); /* every warp's offset written */
    *total = shared->live;
    return shared->warp_offsets[warp] + inclusive - flag;
}

/* The block loops over three steps: compact the live paths to the front of its slots, fill the
 * free slots with new paths, extend every path by one segment. It leaves, all threads at once,
 * when it has no live path and the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    __shared__ struct block_compaction shared;
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    int queue_empty = 0; /* thread 0's: the counter has passed the last path */
    for (;;) {
        /* Compaction: each live path to its slot, in the order the paths had. */
        int live;
        int slot = block_exclusive_scan(active, &shared, &live);
        if (active)
            stage_path(&shared.slots, slot, path);
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
            path = unstage_path(&shared.slots, t);
            active = 1;
        } else {
            unsigned long long q = first_new_path + (unsigned long long)(t - live);
            active = q < total;
            if (active)
                path = start_path(q, width, height, camera);
        }
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
                                                 world->sphere_count, job->width, job->height,
                                                 job->samples, job->max_depth);
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
