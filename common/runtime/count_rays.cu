/* Counts the rays an image needs, for the report's rays per second, with the reference
 * arithmetic (the main track's spec_trace.h, the path tracer's pt_math.h). It runs after the
 * timed phases, so no stage has to count. One kernel for both tracks: only a pixel's count
 * differs. The reservoirs estimator (pt_reservoirs.h), whose samples depend on the frame before
 * and on the neighbours, has two kernels of its own a frame: the CPU reference's two sweeps. */
/* pt_closest_hit walks a world's tree when it has one (pt_math.h). */
#define PT_WORLD_MAY_HAVE_A_TREE
#include "raytrace/bvh.h"
#include "runtime/count_rays.h"
#include "raytrace/cpu_reference.h" /* CPU_REFERENCE_BVH_FROM */
#include "runtime/cuda_check.h"
#include "pathtrace/pt_bvh.h"
#include "pathtrace/pt_reservoirs.h"

#define COUNT_BLOCK 128

/* What the kernel counts: one track's world (the other's is unused). */
struct count_job {
    int path_tracing; /* 0: SPEC.md's ray tracer; 1: the path tracer */
    struct spec_world spheres;
    struct spec_bvh bvh; /* nodes NULL: every sphere */
    struct pt_world paths;
    int width, height;
    int samples, estimator; /* the path tracer's */
};

__device__ unsigned long long pixel_rays(const struct count_job *job, int x, int y)
{
    if (!job->path_tracing) {
        int rays;
        spec_trace_pixel(&job->spheres, job->bvh.nodes ? &job->bvh : NULL, x, y, job->width,
                         job->height, &rays);
        return (unsigned long long)rays;
    }
    unsigned long long rays = 0;
    for (int s = 0; s < job->samples; ++s) {
        int path_rays;
        pt_trace_sample_with(&job->paths, job->estimator, x, y, (unsigned)s, &path_rays);
        rays += (unsigned long long)path_rays;
    }
    return rays;
}

__global__ void count_rays_kernel(struct count_job job, unsigned long long *total)
{
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel < (long long)job.width * job.height)
        atomicAdd(&block_total, pixel_rays(&job, (int)(pixel % job.width), (int)(pixel / job.width)));
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(total, block_total);
}

/* The job's world already points at device memory. */
static unsigned long long count_on_gpu(struct count_job job)
{
    unsigned long long *total;
    CUDA_CHECK(cudaMalloc((void **)&total, sizeof *total));
    CUDA_CHECK(cudaMemset(total, 0, sizeof *total));
    long long pixels = (long long)job.width * job.height;
    count_rays_kernel<<<(unsigned)((pixels + COUNT_BLOCK - 1) / COUNT_BLOCK), COUNT_BLOCK>>>(job, total);
    CUDA_CHECK_LAUNCH("count_rays_kernel");
    unsigned long long rays = 0;
    CUDA_CHECK(cudaMemcpy(&rays, total, sizeof rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(total));
    return rays;
}

/* A device copy of bytes of host memory (NULL for none). */
static void *device_copy(const void *host, size_t bytes)
{
    void *device = NULL;
    if (bytes == 0)
        return NULL;
    CUDA_CHECK(cudaMalloc(&device, bytes));
    CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
    return device;
}

extern "C" unsigned long long gpu_count_rays(const struct scene *scene, int width, int height)
{
    struct count_job job = {};
    job.spheres = scene_world(scene);
    job.spheres.spheres = (struct spec_sphere *)device_copy(
        scene->spheres, (size_t)scene->sphere_count * sizeof(struct spec_sphere));
    /* Many spheres: through the CPU reference's hierarchy (the same counts, much sooner). */
    struct bvh bvh = {};
    if (scene->sphere_count > CPU_REFERENCE_BVH_FROM &&
        bvh_build(scene->spheres, scene->sphere_count, &bvh) == 0) {
        job.bvh.nodes = (struct spec_bvh_node *)device_copy(
            bvh.nodes, (size_t)bvh.node_count * sizeof(struct spec_bvh_node));
        job.bvh.node_count = bvh.node_count;
        job.bvh.order = (int *)device_copy(bvh.order, (size_t)scene->sphere_count * sizeof(int));
        bvh_free(&bvh);
    }
    job.width = width;
    job.height = height;
    unsigned long long rays = count_on_gpu(job);
    CUDA_CHECK(cudaFree((void *)job.spheres.spheres));
    CUDA_CHECK(cudaFree((void *)job.bvh.nodes)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree((void *)job.bvh.order));
    return rays;
}

/* ---- reservoirs (SPEC-PATH-TRACING.md section 6): frame by frame, as the CPU reference -- */

/* The reservoirs' buffers on the GPU, laid out as build/pt-reference lays them out on the host
 * (pt_restir_carve): PT_RESTIR_PIXEL_BYTES a pixel in one allocation. */
struct count_reservoirs {
    struct pt_primary_buffers hits[2]; /* frame s writes hits[s % 2], reads hits[(s + 1) % 2] */
    struct pt_reservoir_buffers current, final;
};

/* Passes 1 and 2 of frame `sample` for every pixel: pt_reference.c's primary_and_temporal_row. */
__global__ void count_reservoirs_primary(struct pt_world world, struct count_reservoirs r,
                                         unsigned sample)
{
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= (long long)world.width * world.height)
        return;
    unsigned p = (unsigned)pixel;
    int i = (int)(pixel % world.width), j = (int)(pixel / world.width);
    struct pt_primary_hit hit;
    struct pt_restir_reservoir current = pt_restir_primary(&world, i, j, sample, &hit);
    if (r.final.count[p] > 0) /* none in frame 0, whose hits[(sample + 1) % 2] were never written */
        current = pt_restir_temporal(&world, hit, current,
                                     pt_primary_load(r.hits[(sample + 1) % 2], p),
                                     pt_reservoir_load(r.final, p), p, sample);
    pt_primary_store(r.hits[sample % 2], p, hit);
    pt_reservoir_store(r.current, p, current);
}

/* Passes 3 and 4 of frame `sample` for every pixel (pt_reference.c's spatial_and_shade_row), the
 * rays of pass 4 added into *total: the only rays the estimator counts (SPEC.md section 6). */
__global__ void count_reservoirs_rays(struct pt_world world, struct count_reservoirs r,
                                      unsigned sample, unsigned long long *total)
{
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel < (long long)world.width * world.height) {
        unsigned p = (unsigned)pixel;
        int i = (int)(pixel % world.width), j = (int)(pixel / world.width);
        struct pt_restir_reservoir final = pt_restir_spatial(&world, r.hits[sample % 2], r.current,
                                                             i, j, sample);
        pt_reservoir_store(r.final, p, final);
        int rays;
        pt_restir_trace_sample(&world, i, j, sample, final, &rays);
        atomicAdd(&block_total, (unsigned long long)rays);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(total, block_total);
}

/* The rays of `samples` frames of the reservoirs estimator; world already points at device
 * memory. The buffers (136 bytes a pixel) are allocated here and freed before returning, and
 * `final` starts as pt_restir_empty() at every pixel, as in the CPU reference. */
static unsigned long long count_reservoirs_on_gpu(struct pt_world world, int samples)
{
    size_t pixels = (size_t)world.width * (size_t)world.height;
    float *block;
    CUDA_CHECK(cudaMalloc((void **)&block, pixels * PT_RESTIR_PIXEL_BYTES));
    struct count_reservoirs r;
    pt_restir_carve(block, pixels, r.hits, &r.current, &r.final);
    CUDA_CHECK(cudaMemset(r.final.normal_x, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(r.final.normal_y, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(r.final.normal_z, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(r.final.weight_sum, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(r.final.target, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(r.final.light, 0xff, pixels * sizeof(int))); /* -1: none kept */
    CUDA_CHECK(cudaMemset(r.final.count, 0, pixels * sizeof(int)));
    unsigned long long *total;
    CUDA_CHECK(cudaMalloc((void **)&total, sizeof *total));
    CUDA_CHECK(cudaMemset(total, 0, sizeof *total));
    unsigned blocks = (unsigned)((pixels + COUNT_BLOCK - 1) / COUNT_BLOCK);
    for (int s = 0; s < samples; ++s) {
        count_reservoirs_primary<<<blocks, COUNT_BLOCK>>>(world, r, (unsigned)s);
        CUDA_CHECK_LAUNCH("count_reservoirs_primary");
        count_reservoirs_rays<<<blocks, COUNT_BLOCK>>>(world, r, (unsigned)s, total);
        CUDA_CHECK_LAUNCH("count_reservoirs_rays");
    }
    unsigned long long rays = 0;
    CUDA_CHECK(cudaMemcpy(&rays, total, sizeof rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(total));
    CUDA_CHECK(cudaFree(block));
    return rays;
}

extern "C" unsigned long long pt_gpu_count_rays(const struct pt_world *world, int samples,
                                                int estimator)
{
    struct count_job job = {};
    job.path_tracing = 1;
    job.paths = *world;
    job.paths.spheres = (struct pt_sphere *)device_copy(
        world->spheres, (size_t)world->sphere_count * sizeof(struct pt_sphere));
    job.paths.materials = (struct pt_material *)device_copy(
        world->materials, (size_t)world->sphere_count * sizeof(struct pt_material));
    job.paths.lights = (struct pt_light *)device_copy(
        world->lights, (size_t)world->light_count * sizeof(struct pt_light));
    /* Many spheres: through the CPU reference's hierarchy (the same counts, much sooner). */
    struct bvh bvh = {};
    job.paths.bvh.nodes = NULL;
    job.paths.bvh.order = NULL;
    if (world->sphere_count > PT_BVH_FROM &&
        pt_bvh_build(world->spheres, world->sphere_count, &bvh) == 0) {
        job.paths.bvh.nodes = (struct spec_bvh_node *)device_copy(
            bvh.nodes, (size_t)bvh.node_count * sizeof(struct spec_bvh_node));
        job.paths.bvh.node_count = bvh.node_count;
        job.paths.bvh.order = (int *)device_copy(bvh.order, (size_t)world->sphere_count * sizeof(int));
        bvh_free(&bvh);
    }
    job.width = world->width;
    job.height = world->height;
    job.samples = samples;
    job.estimator = estimator;
    unsigned long long rays = estimator == PT_ESTIMATOR_RESERVOIRS
                                  ? count_reservoirs_on_gpu(job.paths, samples)
                                  : count_on_gpu(job);
    CUDA_CHECK(cudaFree((void *)job.paths.spheres));
    CUDA_CHECK(cudaFree((void *)job.paths.materials));
    CUDA_CHECK(cudaFree((void *)job.paths.lights)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree((void *)job.paths.bvh.nodes));
    CUDA_CHECK(cudaFree((void *)job.paths.bvh.order));
    return rays;
}
