/*
 * Stage p05a, split channels (a side stage): each channel of a sample its own array.
 *
 * Samples split one step further than p05: each channel of the colour and of the attenuation
 * its own float array (seed 001 tried this and lost: 180.2 -> 161.5 M rays/s). The loads stay
 * coalesced, but the host now copies three arrays each frame, and adds from three places per
 * pixel.
 *
 * Builds on p05-soa-samples.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128

const struct stage_info stage_info = {
    PT_SCENE_MAX_SPHERES,
    "the scene's limit",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

struct ray {
    struct spec_vec3 origin, direction;
    int done;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

/* Where rays and hits live: one array per field. */
struct ray_arrays {
    struct spec_vec3 *origin, *direction;
    int *done;
};

struct hit_arrays {
    float *t;
    int *sphere;
};

__device__ static struct ray load_ray(struct ray_arrays rays, int p)
{
    struct ray ray;
    ray.origin = rays.origin[p];
    ray.direction = rays.direction[p];
    ray.done = rays.done[p];
    return ray;
}

__device__ static void store_ray(struct ray_arrays rays, int p, struct ray ray)
{
    rays.origin[p] = ray.origin;
    rays.direction[p] = ray.direction;
    rays.done[p] = ray.done;
}

struct sample {
    struct spec_vec3 colour;      /* what the path has brought back */
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

struct sample_arrays {
    float *colour[3], *attenuation[3]; /* red, green, blue */
};

__device__ static struct sample load_sample(struct sample_arrays samples, int p)
{
    struct sample sample;
    sample.colour = spec_v3(samples.colour[0][p], samples.colour[1][p], samples.colour[2][p]);
    sample.attenuation = spec_v3(samples.attenuation[0][p], samples.attenuation[1][p],
                                 samples.attenuation[2][p]);
    return sample;
}

__device__ static void store_sample(struct sample_arrays samples, int p, struct sample sample)
{
    samples.colour[0][p] = sample.colour.x;
    samples.colour[1][p] = sample.colour.y;
    samples.colour[2][p] = sample.colour.z;
    samples.attenuation[0][p] = sample.attenuation.x;
    samples.attenuation[1][p] = sample.attenuation.y;
    samples.attenuation[2][p] = sample.attenuation.z;
}

__global__ void camera_kernel(struct ray_arrays rays, struct sample_arrays samples,
                              struct spec_vec3 camera, int width, int height, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height)
        return;
    struct ray ray;
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray.origin, &ray.direction);
    ray.done = 0;
    store_ray(rays, p, ray);
    struct sample sample;
    sample.colour = spec_v3(0.0f, 0.0f, 0.0f);
    sample.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    store_sample(samples, p, sample);
}

__global__ void intersect_kernel(struct ray_arrays rays, struct hit_arrays hits,
                                 const struct pt_sphere *spheres, int sphere_count, int count)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    if (rays.done[p])
        return;
    const struct ray ray = load_ray(rays, p);
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(spheres[s], ray.origin, ray.direction);
        if (t < hit.t) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    hits.t[p] = hit.t;
    hits.sphere[p] = hit.sphere;
}

__global__ void scatter_kernel(struct ray_arrays rays, struct hit_arrays hits,
                               struct sample_arrays samples, const struct pt_sphere *spheres,
                               const struct pt_material *materials, struct spec_vec3 sky,
                               int count, unsigned frame, int segment, int max_depth)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    if (rays.done[p])
        return;
    struct ray ray = load_ray(rays, p);
    struct hit hit;
    hit.t = hits.t[p];
    hit.sphere = hits.sphere[p];
    struct sample sample = load_sample(samples, p);
    if (hit.sphere < 0) {
        sample.colour = spec_mul(sample.attenuation, sky);
        ray.done = 1;
    } else {
        struct pt_scatter scatter;
        pt_scatter_hit(materials[hit.sphere], spheres[hit.sphere], ray.origin, ray.direction,
                       hit.t, (unsigned)p, frame, segment, &scatter);
        if (scatter.event == PT_EMITTED) {
            sample.colour = spec_mul(sample.attenuation, scatter.emitted);
            ray.done = 1;
        } else if (scatter.event == PT_ABSORBED) {
            ray.done = 1;
        } else {
            sample.attenuation = spec_mul(sample.attenuation, scatter.attenuation);
            ray.origin = scatter.origin;
            ray.direction = scatter.direction;
            if (segment == max_depth - 1)
                ray.done = 1; /* still going after the last segment: it brings nothing */
        }
    }
    store_ray(rays, p, ray);
    store_sample(samples, p, sample);
}

/* What the kernels work on, on the GPU. */
struct device_paths {
    struct ray_arrays rays;
    struct hit_arrays hits;
    struct sample_arrays samples;
    struct pt_sphere *spheres;
    struct pt_material *materials;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->rays.origin, (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->rays.direction, (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->rays.done, (size_t)count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits.t, (size_t)count * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits.sphere, (size_t)count * sizeof(int)));
    for (int c = 0; c < 3; ++c) {
        CUDA_CHECK(cudaMalloc((void **)&d->samples.colour[c], (size_t)count * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&d->samples.attenuation[c], (size_t)count * sizeof(float)));
    }
    CUDA_CHECK(cudaMalloc((void **)&d->spheres, (size_t)sphere_count * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->materials,
                          (size_t)sphere_count * sizeof(struct pt_material)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->rays.origin));
    CUDA_CHECK(cudaFree(d->rays.direction));
    CUDA_CHECK(cudaFree(d->rays.done));
    CUDA_CHECK(cudaFree(d->hits.t));
    CUDA_CHECK(cudaFree(d->hits.sphere));
    for (int c = 0; c < 3; ++c) {
        CUDA_CHECK(cudaFree(d->samples.colour[c]));
        CUDA_CHECK(cudaFree(d->samples.attenuation[c]));
    }
    CUDA_CHECK(cudaFree(d->spheres));
    CUDA_CHECK(cudaFree(d->materials));
}

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpy(d->spheres, world->spheres, sphere_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->materials, world->materials, material_bytes, cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes;
}

static void launch_intersect(const struct device_paths *d, const struct pt_world *world,
                             int count)
{
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    intersect_kernel<<<blocks, BLOCK_THREADS>>>(d->rays, d->hits, d->spheres,
                                                world->sphere_count, count);
    CUDA_CHECK_LAUNCH("intersect_kernel");
}

static void launch_scatter(const struct device_paths *d, const struct pt_world *world, int count,
                           unsigned frame, int segment)
{
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    scatter_kernel<<<blocks, BLOCK_THREADS>>>(d->rays, d->hits, d->samples, d->spheres,
                                              d->materials, world->sky, count, frame, segment,
                                              world->max_depth);
    CUDA_CHECK_LAUNCH("scatter_kernel");
}

/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */
static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(record->origin, d->rays.origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->direction, d->rays.direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->done, d->rays.done, count * sizeof(int), cudaMemcpyDeviceToHost));
    float *channel = (float *)host_alloc_or_exit(count * sizeof(float), "a channel");
    for (int c = 0; c < 3; ++c) {
        CUDA_CHECK(cudaMemcpy(channel, d->samples.colour[c], count * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (size_t p = 0; p < count; ++p)
            (&record->colour[p].x)[c] = channel[p];
        CUDA_CHECK(cudaMemcpy(channel, d->samples.attenuation[c], count * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (size_t p = 0; p < count; ++p)
            (&record->attenuation[p].x)[c] = channel[p];
    }
    free(channel);
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(d->rays.origin, record->origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.direction, record->direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.done, record->done, count * sizeof(int), cudaMemcpyHostToDevice));
    float *channel = (float *)host_alloc_or_exit(count * sizeof(float), "a channel");
    for (int c = 0; c < 3; ++c) {
        for (size_t p = 0; p < count; ++p)
            channel[p] = (&record->colour[p].x)[c];
        CUDA_CHECK(cudaMemcpy(d->samples.colour[c], channel, count * sizeof(float),
                              cudaMemcpyHostToDevice));
        for (size_t p = 0; p < count; ++p)
            channel[p] = (&record->attenuation[p].x)[c];
        CUDA_CHECK(cudaMemcpy(d->samples.attenuation[c], channel, count * sizeof(float),
                              cudaMemcpyHostToDevice));
    }
    free(channel);
}

/* --record: the paths before segment `segment` of frame 0. */
static void record_paths(const struct pt_render_job *job, const struct device_paths *d,
                         int segment)
{
    struct pt_record record;
    if (pt_record_alloc(&record, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for --record\n", stage_manifest.name);
        exit(1);
    }
    paths_to_record(d, &record);
    record.sample = 0;
    record.segment = segment;
    record.max_depth = job->max_depth;
    char error[PT_RECORD_ERROR_BYTES];
    if (pt_record_write(job->record_dir, job->scene_path, &record, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(1);
    }
    pt_record_free(&record);
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);
    size_t channel_bytes = (size_t)count * sizeof(float);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    for (size_t c = 0; c < (size_t)count * 3; ++c)
        sums[c] = 0;
    float *host_colours[3];
    for (int c = 0; c < 3; ++c)
        host_colours[c] = (float *)host_alloc_or_exit(channel_bytes, "colours");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->sphere_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)scatter_kernel, BLOCK_THREADS, 0);
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        camera_kernel<<<blocks, BLOCK_THREADS>>>(d.rays, d.samples, world->camera, job->width,
                                                 job->height, (unsigned)frame);
        CUDA_CHECK_LAUNCH("camera_kernel");
        for (int segment = 0; segment < job->max_depth; ++segment) {
            if (job->record_dir && frame == 0 && segment == job->record_segment)
                record_paths(job, &d, segment);
            launch_intersect(&d, world, count);
            launch_scatter(&d, world, count, (unsigned)frame, segment);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        kernel_timer_part(&timer, report, "kernels");

        for (int c = 0; c < 3; ++c)
            CUDA_CHECK(cudaMemcpy(host_colours[c], d.samples.colour[c], channel_bytes,
                                  cudaMemcpyDeviceToHost));
        kernel_timer_part(&timer, report, "frame_copy");
        report->bytes_to_host += 3 * channel_bytes;

        for (int c = 0; c < 3; ++c)
            for (int p = 0; p < count; ++p)
                sums[(size_t)p * 3 + c] += pt_fixed(host_colours[c][p]);
        kernel_timer_part(&timer, report, "host_accumulate");
    }
    kernel_timer_stop(&timer, report);

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    for (int c = 0; c < 3; ++c)
        free(host_colours[c]);
    report_phase_since(report, PHASE_HOST_FREE, start);
}

/* The kernel benchmark: the recorded paths in this stage's layout, then each kernel alone. */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times)
{
    struct pt_world world = pt_scene_world(scene, record->width, record->height);
    world.max_depth = record->max_depth;
    int count = record->width * record->height;
    times->active = 0;
    for (int p = 0; p < count; ++p)
        times->active += !record->done[p];

    struct device_paths d;
    paths_alloc(&d, count, world.sphere_count);
    paths_upload_scene(&d, &world);
    double *intersect_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    double *scatter_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    cudaEvent_t marks[3];
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventCreate(&marks[k]));
    for (int r = 0; r < repeats; ++r) {
        paths_from_record(&d, record); /* the scatter kernel changed them */
        CUDA_CHECK(cudaEventRecord(marks[0], 0));
        launch_intersect(&d, &world, count);
        CUDA_CHECK(cudaEventRecord(marks[1], 0));
        launch_scatter(&d, &world, count, (unsigned)record->sample, record->segment);
        CUDA_CHECK(cudaEventRecord(marks[2], 0));
        CUDA_CHECK(cudaEventSynchronize(marks[2]));
        float ms[2];
        CUDA_CHECK(cudaEventElapsedTime(&ms[0], marks[0], marks[1]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[1], marks[1], marks[2]));
        intersect_us[r] = ms[0] * 1000.0;
        scatter_us[r] = ms[1] * 1000.0;
    }
    pt_bench_median_min(intersect_us, repeats, times->intersect_us);
    pt_bench_median_min(scatter_us, repeats, times->scatter_us);
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventDestroy(marks[k]));
    paths_free(&d);
    free(intersect_us);
    free(scatter_us);
}
