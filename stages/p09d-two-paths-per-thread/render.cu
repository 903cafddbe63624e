/*
 * Stage p09d, two paths per thread (a side stage): two independent paths in one thread (seed
 * 002, "maximize register usage").
 *
 * In p09 a thread's work is one chain of dependent instructions: each sphere test waits for the
 * constant-cache read and the arithmetic before it, and the warp scheduler hides that latency
 * with other warps only. Here each thread carries two independent paths, each taking its next
 * path from the counter on its own when it ends, and finds both hits in one loop over the
 * spheres: the two rays' tests of a sphere do not depend on each other, so their instructions
 * interleave and one thread hides part of its own latency (instruction-level parallelism). The
 * price: more registers per thread, so fewer threads per SM (lower occupancy), and a thread
 * whose queue has run dry still tests its idle slot's ray against every sphere.
 *
 * Builds on p09-path-regeneration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
#define PATHS_PER_THREAD 2
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */

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

/* The closest hits of all the thread's paths in one loop over the spheres: each sphere is read
 * once and tested against every ray, and the tests of different rays do not depend on each
 * other, so the compiler interleaves them (the loops over k are unrolled: the paths and hits
 * stay in registers). Each ray still meets the spheres in file order and keeps only strictly
 * nearer hits: the same hit as p09's closest_hit. */
__device__ static void closest_hits(const struct path *paths, int sphere_count, struct hit *hits)
{
#pragma unroll
    for (int k = 0; k < PATHS_PER_THREAD; ++k) {
        hits[k].t = PT_T_FAR;
        hits[k].sphere = -1;
    }
    for (int s = 0; s < sphere_count; ++s) {
        struct pt_sphere sphere = c_spheres[s];
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k) {
            float t = pt_sphere_hit(sphere, paths[k].ray.origin, paths[k].ray.direction);
            if (t < hits[k].t) {
                hits[k].t = t;
                hits[k].sphere = s;
            }
        }
    }
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

/* One segment of the path, its hit found: returns 1 while it goes on; at its end adds what it
 * brought back. */
__device__ static int extend_path(struct path *path, struct hit hit, unsigned long long *sums,
                                  struct spec_vec3 sky, int max_depth)
{
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

/* Every thread loops: each of its slots without a path takes the next one, then the thread
 * finds the hits of all its paths in one sphere loop and extends each by one segment. Once the
 * counter has passed the last path a slot that ends stays idle; its old ray is still tested in
 * the sphere loop (cheaper than a branch per sphere) and its hit ignored. A slot that never got
 * a path holds path 0's camera ray for that. A thread leaves when all its slots are idle and
 * the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path paths[PATHS_PER_THREAD];
    int active[PATHS_PER_THREAD];
    int queue_empty = 0;
#pragma unroll
    for (int k = 0; k < PATHS_PER_THREAD; ++k) {
        paths[k] = start_path(0, width, height, camera);
        active[k] = 0;
    }
    for (;;) {
        int any_active = 0;
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k) {
            if (!active[k] && !queue_empty) {
                unsigned long long q = atomicAdd(next_path, 1ULL);
                if (q < total) {
                    paths[k] = start_path(q, width, height, camera);
                    active[k] = 1;
                } else {
                    queue_empty = 1; /* no more atomics: the counter stays past the end */
                }
            }
            any_active |= active[k];
        }
        if (!any_active)
            return;
        struct hit hits[PATHS_PER_THREAD];
        closest_hits(paths, sphere_count, hits);
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k)
            if (active[k])
                active[k] = extend_path(&paths[k], hits[k], sums, sky, max_depth);
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
