/*
 * Stage p12, host work behind the render: the kernels are launched before the host maps,
 * touches and registers the image's pages, so the CPU does that work while the GPU renders.
 *
 * In p11 the host prepares the image's memory first (about 1 ms on the H100) and launches the
 * render after it, though nothing on the GPU needs that memory before the copy back. A launch
 * returns at once; so here the order is device allocation, upload, launch, and only then the
 * host's pages, while the kernels run; the event that ends the render loop is waited for after
 * them. The kernel phase, by the CPU's clock, now spans both: the longer of the two, not their
 * sum. The host's steps are reported as metrics of their own (`host_map`, `host_touch`,
 * `host_register`), not as parts of a phase, since their time is inside the kernel phase.
 *
 * Builds on p11-registered-host-pages.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "host_pages.h"
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

/* Every thread loops: a thread without a path takes the next one, then every thread extends
 * its path by one segment. A thread leaves when the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
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
        active = extend_path(&path, sums, sky, sphere_count, max_depth);
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

/* What the kernels work on, on the GPU: the sums, the counter of paths handed out, and the
 * 8-bit image made from the sums. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
    unsigned char *rgb; /* 3 per pixel */
};

static void paths_alloc(struct device_paths *d, int count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->rgb, (size_t)count * 3));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
    CUDA_CHECK(cudaFree(d->rgb));
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
    size_t channels = (size_t)count * 3;

    double start = timer_now_us();
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
