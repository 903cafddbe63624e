/* Counts the rays an image needs, for the report's rays per second, with the reference
 * arithmetic (the main track's spec_trace.h, the path tracer's pt_math.h). It runs after the
 * timed phases, so no stage has to count. One kernel for both tracks: only a pixel's count
 * differs. */
#include "bvh.h"
#include "count_rays.h"
#include "cpu_reference.h" /* CPU_REFERENCE_BVH_FROM */
#include "cuda_check.h"

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
    job.width = world->width;
    job.height = world->height;
    job.samples = samples;
    job.estimator = estimator;
    unsigned long long rays = count_on_gpu(job);
    CUDA_CHECK(cudaFree((void *)job.paths.spheres));
    CUDA_CHECK(cudaFree((void *)job.paths.materials));
    CUDA_CHECK(cudaFree((void *)job.paths.lights)); /* cudaFree(NULL) does nothing */
    return rays;
}
