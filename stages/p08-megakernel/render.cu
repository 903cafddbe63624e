/*
 * Stage p08, megakernel: one kernel for the whole path (seed 002, "single kernel versus multi
 * kernel").
 *
 * Until p07 the host drove a wavefront: per frame a camera kernel, then for every segment an
 * intersection kernel and a scatter kernel over all paths, then an accumulation kernel, 18
 * launches a frame, each reading its paths from device memory and writing them back. Here one
 * thread follows one path from the camera to its end inside one kernel (a "megakernel"): the
 * ray, the hit and the throughput never leave registers, no launch waits for a finished path,
 * and one launch a frame adds the sample to the pixel's sums. The price: a warp runs until its
 * longest path ends, and the kernel holds the registers of every part of the path at once.
 *
 * Builds on p07-constant-scene.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
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

/* Sample `frame` of pixel p, start to end: what pt_trace_sample computes, in this stage's
 * registers. */
__device__ static struct spec_vec3 trace_path(int p, int width, int height, struct spec_vec3 camera,
                                              struct spec_vec3 sky, int sphere_count,
                                              unsigned frame, int max_depth)
{
    struct ray ray;
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray.origin, &ray.direction);
    struct spec_vec3 attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    for (int segment = 0; segment < max_depth; ++segment) {
        struct hit hit = closest_hit(ray, sphere_count);
        if (hit.sphere < 0)
            return spec_mul(attenuation, sky);
        struct pt_scatter scatter;
        pt_scatter_hit(c_materials[hit.sphere], c_spheres[hit.sphere], ray.origin, ray.direction,
                       hit.t, (unsigned)p, frame, segment, &scatter);
        if (scatter.event == PT_EMITTED)
            return spec_mul(attenuation, scatter.emitted);
        if (scatter.event == PT_ABSORBED)
            break;
        attenuation = spec_mul(attenuation, scatter.attenuation);
        ray.origin = scatter.origin;
        ray.direction = scatter.direction;
    }
    return spec_v3(0.0f, 0.0f, 0.0f); /* absorbed, or still going after the last segment */
}

__global__ void path_kernel(unsigned long long *sums, struct spec_vec3 camera,
                            struct spec_vec3 sky, int sphere_count, int width, int height,
                            unsigned frame, int max_depth)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height)
        return;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, frame,
                                         max_depth);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}

/* What the kernel works on, on the GPU: only the sums. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
};

static void paths_alloc(struct device_paths *d, int count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
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

    gpu_kernel_resources(report, (const void *)path_kernel, BLOCK_THREADS, 0);
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        path_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, world->camera, world->sky,
                                               world->sphere_count, job->width, job->height,
                                               (unsigned)frame, job->max_depth);
        CUDA_CHECK_LAUNCH("path_kernel");
    }
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
