/* Counts the rays SPEC.md's image needs, for the report's rays-per-second figure. It runs after
 * the timed phases, with the reference arithmetic of spec_trace.h, so no stage has to count. */
#include "scene.h"
#include "stage.h"

#define COUNT_BLOCK 256

__global__ void count_rays_kernel(struct spec_world world, int width, int height,
                                  unsigned long long *total)
{
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel < (long long)width * height) {
        int rays;
        spec_trace_pixel(&world, (int)(pixel % width), (int)(pixel / width), width, height, &rays);
        atomicAdd(&block_total, (unsigned long long)rays);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(total, block_total);
}

extern "C" unsigned long long gpu_count_rays(const struct scene *scene, int width, int height)
{
    struct spec_world world = scene_world(scene);
    size_t sphere_bytes = (size_t)scene->sphere_count * sizeof(struct spec_sphere);
    struct spec_sphere *spheres;
    unsigned long long *total;
    CUDA_CHECK(cudaMalloc((void **)&spheres, sphere_bytes));
    CUDA_CHECK(cudaMalloc((void **)&total, sizeof *total));
    CUDA_CHECK(cudaMemcpy(spheres, scene->spheres, sphere_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(total, 0, sizeof *total));
    world.spheres = spheres;
    long long pixels = (long long)width * height;
    count_rays_kernel<<<(unsigned)((pixels + COUNT_BLOCK - 1) / COUNT_BLOCK), COUNT_BLOCK>>>(
        world, width, height, total);
    CUDA_CHECK_LAUNCH("count_rays_kernel");
    unsigned long long rays = 0;
    CUDA_CHECK(cudaMemcpy(&rays, total, sizeof rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(spheres));
    CUDA_CHECK(cudaFree(total));
    return rays;
}
