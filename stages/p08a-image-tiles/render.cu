/*
 * Stage p08a, image tiles (a side stage): the frame in tiles, each tile one launch with all its
 * samples (seed 002, "image tiling").
 *
 * p08 launches its path kernel once per sample over the whole frame; here the frame is cut into
 * N x N tiles (--tiles N) and each tile is one launch of the same path kernel that traces every
 * sample of every pixel of the tile: tile width x tile height x samples paths (the seed's
 * paths = tile.width * tile.height * iterations), N * N launches one after the other. Two samples
 * of a pixel now run in one launch, so the sums are added with 64-bit atomics; integer sums do
 * not depend on the order of the additions, so the image keeps every bit. A renderer tiles to
 * keep the host in control between launches (a responsive interface, progressive display) and
 * to need memory for one tile only; what it costs is the question: every launch ends with its
 * own tail of long paths while SMs idle, and once a tile's paths are fewer than the GPU holds at
 * once, the launch cannot fill it. --tiles 1 is one launch of every path of the frame.
 *
 * Builds on p08-megakernel.
 */
#include <limits.h>
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

/* One thread per path of the tile whose top left pixel is (tile_x, tile_y): every sample of
 * every pixel of the tile, in one launch (seed 002's tile: width x height x iterations paths).
 * Path k is sample k / (tile pixels) of the tile's pixel k % (tile pixels), numbered row by row
 * within the tile, so neighbouring threads trace neighbouring pixels of one frame, as in p08.
 * Two samples of a pixel now run in the same launch: the sums are added with atomics, which
 * integer sums allow in any order (common/pathtrace/SPEC.md section 4). */
__global__ void path_kernel(unsigned long long *sums, struct spec_vec3 camera,
                            struct spec_vec3 sky, int sphere_count, int width, int height,
                            int tile_x, int tile_y, int tile_width, int tile_height, int samples,
                            int max_depth)
{
    unsigned long long tile_pixels = (unsigned long long)tile_width * (unsigned long long)tile_height;
    unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= tile_pixels * (unsigned long long)samples)
        return;
    int in_tile = (int)(k % tile_pixels);
    unsigned frame = (unsigned)(k / tile_pixels);
    int p = (tile_y + in_tile / tile_width) * width + tile_x + in_tile % tile_width;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, frame,
                                         max_depth);
    atomicAdd(&sums[3 * (size_t)p + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)p + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)p + 2], (unsigned long long)pt_fixed(colour.z));
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

/* Where tile t of `tiles` starts along a side of `length` pixels: tile t covers
 * [tile_start(t), tile_start(t + 1)), at least one pixel since there are no more tiles than
 * pixels a side (checked by main). Within today's limits t * length is at most 1024 x 32768;
 * it is taken in 64 bits so that raising them cannot overflow it. */
static int tile_start(int t, int length, int tiles)
{
    return (int)((long long)t * length / tiles);
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
    int tiles = job->tiles;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int ty = 0; ty < tiles; ++ty) {
        int top = tile_start(ty, job->height, tiles);
        int tile_height = tile_start(ty + 1, job->height, tiles) - top;
        for (int tx = 0; tx < tiles; ++tx) {
            int left = tile_start(tx, job->width, tiles);
            int tile_width = tile_start(tx + 1, job->width, tiles) - left;
            unsigned long long paths = (unsigned long long)tile_width * tile_height * job->samples;
            unsigned long long blocks = (paths + BLOCK_THREADS - 1) / BLOCK_THREADS;
            if (blocks > INT_MAX) { /* a grid's x dimension holds 2^31 - 1 blocks */
                fprintf(stderr,
                        "%s: error: a %dx%d tile at %d samples is %llu paths, more than one "
                        "launch holds (%llu): use more --tiles\n",
                        cuda_check_program, tile_width, tile_height, job->samples, paths,
                        (unsigned long long)INT_MAX * BLOCK_THREADS);
                exit(2);
            }
            path_kernel<<<(unsigned)blocks, BLOCK_THREADS>>>(
                d.sums, world->camera, world->sky, world->sphere_count, job->width, job->height,
                left, top, tile_width, tile_height, job->samples, job->max_depth);
            CUDA_CHECK_LAUNCH("path_kernel");
        }
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
