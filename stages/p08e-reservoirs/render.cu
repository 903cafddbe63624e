/*
 * Stage p08e, reservoirs (a side stage): seed 003's ReSTIR. The reservoir that next-event
 * estimation builds at the camera ray's diffuse hit is kept per pixel in buffers in global
 * memory, structures of arrays (seed 003's ReservoirBuffer), and merged with the reservoir the
 * pixel ended the previous frame with and with up to three neighbours' before its shadow ray is
 * traced.
 *
 * p08b draws 8 candidates at that hit and forgets them once its shadow ray is traced. Reservoirs
 * (common/pathtrace/SPEC.md section 6, estimator reservoirs) let a pixel's one shadow ray go to a
 * light chosen among hundreds of candidates: its own 8, up to 160 that its previous frame stood
 * for, and its neighbours', each re-weighted by what it would bring here. A frame is four passes
 * over the pixels (pathtrace/pt_reservoirs.h), each reading only what earlier passes wrote, and a
 * pass that reads another pixel's reservoir needs every pixel's earlier pass done: two kernels a
 * frame. initial_ris_kernel is passes 1 and 2 (the camera ray, the initial RIS, the temporal merge:
 * own pixel only); path_kernel is passes 3 and 4 (the spatial merge, which reads neighbours'
 * reservoirs, then nee's path with the merged reservoir standing for the camera hit's). The
 * passes' arithmetic is pt_reservoirs.h's, which build/pt-reference calls too: the same bits.
 *
 * The buffers hold 136 bytes a pixel: the camera hits of two frames (frame s writes set s mod 2
 * and reads the other) and two reservoir buffers, `current` (passes 1 and 2 write it, pass 3
 * reads it at the neighbours) and `final` (pass 3 writes it, pass 4 and the next frame's pass 2
 * read it). Each array is one field of every pixel: a warp that reads the `count` of its 32
 * pixels (the temporal pass's test) reads 128 contiguous bytes, and a neighbour that the spatial
 * pass skips for its count costs 4 bytes, not a whole reservoir.
 *
 * Builds on p08b-next-event.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_reservoirs.h"
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

/* The world the passes of pt_reservoirs.h read, on the GPU: the host's sizes, camera, sky and
 * depth (passed by value; its pointers, the host's, are replaced here) with p08b's places for
 * the scene: spheres and materials in constant memory, the light list in global memory. */
__device__ static struct pt_world device_world(struct pt_world world,
                                               const struct pt_light *lights)
{
    world.spheres = c_spheres;
    world.materials = c_materials;
    world.lights = lights;
    return world;
}

/* Passes 1 and 2 of frame `frame`, pixel p: the camera ray's hit and the reservoir of nee's 8
 * candidates there (initial RIS) into `hits` and `current`, merged first with the reservoir
 * the pixel ended the previous frame with (`final`, made at its hit in `before`) when that one
 * stands for candidates. Reads and writes pixel p only. */
__global__ void initial_ris_kernel(const struct pt_light *lights, struct pt_world world,
                                   struct pt_primary_buffers hits, struct pt_primary_buffers before,
                                   struct pt_reservoir_buffers current,
                                   struct pt_reservoir_buffers final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    struct pt_primary_hit hit;
    struct pt_restir_reservoir r = pt_restir_primary(&w, p % w.width, p / w.width, frame, &hit);
    /* One int of `final` decides, as in build/pt-reference: 0 in frame 0 (cudaMemset), whose
     * `before` was never written, and wherever the previous frame had no reservoir. */
    if (final.count[p] > 0)
        r = pt_restir_temporal(&w, hit, r, pt_primary_load(before, (unsigned)p),
                               pt_reservoir_load(final, (unsigned)p), (unsigned)p, frame);
    pt_primary_store(hits, (unsigned)p, hit);
    pt_reservoir_store(current, (unsigned)p, r);
}

/* Passes 3 and 4 of frame `frame`, pixel p: its reservoir after the temporal pass merged with
 * up to three neighbours' (`current` and `hits` of every pixel, written by initial_ris_kernel)
 * into `final`, then sample `frame` of the pixel as nee makes it, but for the camera hit's
 * shadow ray, which goes to the sample that reservoir keeps; added into the pixel's sums. */
__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            struct pt_world world, struct pt_primary_buffers hits,
                            struct pt_reservoir_buffers current,
                            struct pt_reservoir_buffers final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    int i = p % w.width, j = p / w.width;
    struct pt_restir_reservoir r = pt_restir_spatial(&w, hits, current, i, j, frame);
    pt_reservoir_store(final, (unsigned)p, r);
    int rays; /* not this stage's to count: common/count_rays.cu counts them after the render */
    struct spec_vec3 colour = pt_restir_trace_sample(&w, i, j, frame, r, &rays);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}

/* What the kernels work on, on the GPU: the sums, the light list, and the reservoirs' buffers,
 * structures of arrays in one allocation, laid out as build/pt-reference lays them out on the
 * host (pt_restir_carve, pathtrace/pt_reservoirs.h): 30 float arrays, then 4 int arrays, one
 * entry a pixel each. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    struct pt_light *lights;  /* light_count; NULL when the scene has none */
    struct pt_primary_buffers hits[2];          /* frame s writes hits[s % 2], reads the other */
    struct pt_reservoir_buffers current, final; /* passes 1-2 write current, pass 3 final */
    float *reservoirs;                          /* every array of hits, current and final */
};

static void paths_alloc(struct device_paths *d, int count, int light_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    d->lights = NULL;
    if (light_count > 0)
        CUDA_CHECK(cudaMalloc((void **)&d->lights, (size_t)light_count * sizeof(struct pt_light)));
    size_t pixels = (size_t)count;
    CUDA_CHECK(cudaMalloc((void **)&d->reservoirs, pixels * PT_RESTIR_PIXEL_BYTES)); /* 136 B */
    pt_restir_carve(d->reservoirs, pixels, d->hits, &d->current, &d->final);
    /* Before frame 0, `final` is pt_restir_empty() at every pixel (light -1, the rest 0), as in
     * build/pt-reference: frame 0 merges no previous frame. The other arrays are written by
     * every frame before they are read. */
    CUDA_CHECK(cudaMemset(d->final.normal_x, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.normal_y, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.normal_z, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.weight_sum, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.target, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.light, 0xff, pixels * sizeof(int))); /* every byte 0xff: -1 */
    CUDA_CHECK(cudaMemset(d->final.count, 0, pixels * sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->lights)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree(d->reservoirs));
}

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    size_t light_bytes = (size_t)world->light_count * sizeof(struct pt_light);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    if (light_bytes > 0)
        CUDA_CHECK(cudaMemcpy(d->lights, world->lights, light_bytes, cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes + light_bytes;
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
    paths_alloc(&d, count, world->light_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)path_kernel, BLOCK_THREADS, 0);
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        /* Every pixel's passes 1 and 2 are done before any pass 3 reads its neighbours. */
        initial_ris_kernel<<<blocks, BLOCK_THREADS>>>(d.lights, *world, d.hits[frame % 2],
                                                      d.hits[(frame + 1) % 2], d.current, d.final,
                                                      (unsigned)frame);
        CUDA_CHECK_LAUNCH("initial_ris_kernel");
        path_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.lights, *world, d.hits[frame % 2],
                                               d.current, d.final, (unsigned)frame);
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
