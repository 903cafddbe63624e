/*
 * Stage p01, base: the path tracer as seed 001 starts it.
 *
 * A host-driven wavefront: for every frame (one sample per pixel), a kernel makes the camera
 * rays, then for every segment one kernel intersects all the paths' rays with the spheres and
 * one scatters them (pt_math.h's materials). Rays, hits and samples are arrays of structs, each
 * read and written through a pointer to its element; after every frame the samples are copied to
 * the host, which adds the frame's colours to the pixel sums. And the scatter kernel, like seed
 * 000's, allocates its per-thread working record with device-side malloc.
 *
 * The first stage of the path-tracing track: it builds on nothing, and every later stage of the
 * track removes one of these habits. common/pathtrace/SPEC.md fixes the scene, the random numbers
 * and the arithmetic of a path.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
/* Room for every live scatter record of a full GPU (about 2,048 threads on each of up to
 * ~150 SMs at 64 bytes each) many times over: device malloc fails when its heap is full. */
#define MALLOC_HEAP_BYTES ((size_t)256 << 20)

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

struct sample {
    struct spec_vec3 colour;      /* what the path has brought back */
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

__global__ void camera_kernel(struct ray *rays, struct sample *samples, struct spec_vec3 camera,
                              int width, int height, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height)
        return;
    struct ray *ray = &rays[p];
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray->origin,
                  &ray->direction);
    ray->done = 0;
    struct sample *sample = &samples[p];
    sample->colour = spec_v3(0.0f, 0.0f, 0.0f);
    sample->attenuation = spec_v3(1.0f, 1.0f, 1.0f);
}

__global__ void intersect_kernel(const struct ray *rays, struct hit *hits,
                                 const struct pt_sphere *spheres, int sphere_count, int count)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    const struct ray *ray = &rays[p];
    if (ray->done)
        return;
    struct hit *hit = &hits[p];
    hit->t = PT_T_FAR;
    hit->sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(spheres[s], ray->origin, ray->direction);
        if (t < hit->t) {
            hit->t = t;
            hit->sphere = s;
        }
    }
}

__global__ void scatter_kernel(struct ray *rays, const struct hit *hits, struct sample *samples,
                               const struct pt_sphere *spheres,
                               const struct pt_material *materials, struct spec_vec3 sky,
                               int count, unsigned frame, int segment, int max_depth,
                               int *heap_exhausted)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    struct ray *ray = &rays[p];
    if (ray->done)
        return;
    const struct hit *hit = &hits[p];
    struct sample *sample = &samples[p];
    if (hit->sphere < 0) {
        sample->colour = spec_mul(sample->attenuation, sky);
        ray->done = 1;
        return;
    }
    struct pt_scatter *scatter = (struct pt_scatter *)malloc(sizeof *scatter);
    if (!scatter) {
        *heap_exhausted = 1;
        ray->done = 1;
        return;
    }
    pt_scatter_hit(materials[hit->sphere], spheres[hit->sphere], ray->origin, ray->direction,
                   hit->t, (unsigned)p, frame, segment, scatter);
    if (scatter->event == PT_EMITTED) {
        sample->colour = spec_mul(sample->attenuation, scatter->emitted);
        ray->done = 1;
    } else if (scatter->event == PT_ABSORBED) {
        ray->done = 1;
    } else {
        sample->attenuation = spec_mul(sample->attenuation, scatter->attenuation);
        ray->origin = scatter->origin;
        ray->direction = scatter->direction;
        if (segment == max_depth - 1)
            ray->done = 1; /* still going after the last segment: it brings nothing */
    }
    free(scatter);
}

/* What the kernels work on, on the GPU. */
struct device_paths {
    struct ray *rays;
    struct hit *hits;
    struct sample *samples;
    struct pt_sphere *spheres;
    struct pt_material *materials;
    int *heap_exhausted;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, MALLOC_HEAP_BYTES));
    CUDA_CHECK(cudaMalloc((void **)&d->rays, (size_t)count * sizeof(struct ray)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits, (size_t)count * sizeof(struct hit)));
    CUDA_CHECK(cudaMalloc((void **)&d->samples, (size_t)count * sizeof(struct sample)));
    CUDA_CHECK(cudaMalloc((void **)&d->spheres, (size_t)sphere_count * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->materials,
                          (size_t)sphere_count * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->heap_exhausted, sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->rays));
    CUDA_CHECK(cudaFree(d->hits));
    CUDA_CHECK(cudaFree(d->samples));
    CUDA_CHECK(cudaFree(d->spheres));
    CUDA_CHECK(cudaFree(d->materials));
    CUDA_CHECK(cudaFree(d->heap_exhausted));
}

/* The scene in, and the heap's failure flag cleared; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpy(d->spheres, world->spheres, sphere_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->materials, world->materials, material_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d->heap_exhausted, 0, sizeof(int)));
    return sphere_bytes + material_bytes;
}

static void check_heap(const struct device_paths *d)
{
    int exhausted = 0;
    CUDA_CHECK(cudaMemcpy(&exhausted, d->heap_exhausted, sizeof exhausted, cudaMemcpyDeviceToHost));
    if (exhausted) {
        fprintf(stderr, "%s: error: device malloc failed: its heap (%zu bytes) is full\n",
                stage_manifest.name, MALLOC_HEAP_BYTES);
        exit(1);
    }
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
                                              world->max_depth, d->heap_exhausted);
    CUDA_CHECK_LAUNCH("scatter_kernel");
}

/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */
static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct ray *rays = (struct ray *)host_alloc_or_exit(count * sizeof *rays, "rays");
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    CUDA_CHECK(cudaMemcpy(rays, d->rays, count * sizeof *rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(samples, d->samples, count * sizeof *samples, cudaMemcpyDeviceToHost));
    for (size_t p = 0; p < count; ++p) {
        record->origin[p] = rays[p].origin;
        record->direction[p] = rays[p].direction;
        record->done[p] = rays[p].done;
        record->colour[p] = samples[p].colour;
        record->attenuation[p] = samples[p].attenuation;
    }
    free(rays);
    free(samples);
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct ray *rays = (struct ray *)host_alloc_or_exit(count * sizeof *rays, "rays");
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    for (size_t p = 0; p < count; ++p) {
        rays[p].origin = record->origin[p];
        rays[p].direction = record->direction[p];
        rays[p].done = record->done[p];
        samples[p].colour = record->colour[p];
        samples[p].attenuation = record->attenuation[p];
    }
    CUDA_CHECK(cudaMemcpy(d->rays, rays, count * sizeof *rays, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->samples, samples, count * sizeof *samples, cudaMemcpyHostToDevice));
    free(rays);
    free(samples);
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
    size_t sample_bytes = (size_t)count * sizeof(struct sample);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    for (size_t c = 0; c < (size_t)count * 3; ++c)
        sums[c] = 0;
    struct sample *host_samples = (struct sample *)host_alloc_or_exit(sample_bytes, "samples");
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

        CUDA_CHECK(cudaMemcpy(host_samples, d.samples, sample_bytes, cudaMemcpyDeviceToHost));
        kernel_timer_part(&timer, report, "frame_copy");
        report->bytes_to_host += sample_bytes;

        for (int p = 0; p < count; ++p) {
            unsigned long long *sum = sums + (size_t)p * 3;
            sum[0] += pt_fixed(host_samples[p].colour.x);
            sum[1] += pt_fixed(host_samples[p].colour.y);
            sum[2] += pt_fixed(host_samples[p].colour.z);
        }
        kernel_timer_part(&timer, report, "host_accumulate");
    }
    kernel_timer_stop(&timer, report);
    check_heap(&d);

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    free(host_samples);
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
    check_heap(&d);
    pt_bench_median_min(intersect_us, repeats, times->intersect_us);
    pt_bench_median_min(scatter_us, repeats, times->scatter_us);
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventDestroy(marks[k]));
    paths_free(&d);
    free(intersect_us);
    free(scatter_us);
}
