/* Counts the rays the track's image needs, for the report's rays per second. It runs after the
 * timed phases, with the reference arithmetic of pt_math.h, so no stage has to count. */
#include "pathtrace/pt_stage.h"

#define COUNT_BLOCK 128

__global__ void pt_count_rays_kernel(struct pt_world world, int samples, int estimator,
                                     unsigned long long *total)
{
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel < (long long)world.width * world.height) {
        unsigned long long rays = 0;
        for (int s = 0; s < samples; ++s) {
            int path_rays;
            pt_trace_sample_with(&world, estimator, (int)(pixel % world.width),
                                 (int)(pixel / world.width), (unsigned)s, &path_rays);
            rays += (unsigned long long)path_rays;
        }
        atomicAdd(&block_total, rays);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(total, block_total);
}

extern "C" unsigned long long pt_gpu_count_rays(const struct pt_world *host_world, int samples,
                                                int estimator)
{
    struct pt_world world = *host_world;
    size_t sphere_bytes = (size_t)world.sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world.sphere_count * sizeof(struct pt_material);
    size_t light_bytes = (size_t)world.light_count * sizeof(struct pt_light);
    struct pt_sphere *spheres;
    struct pt_material *materials;
    struct pt_light *lights = NULL; /* none in a scene without lights */
    unsigned long long *total;
    CUDA_CHECK(cudaMalloc((void **)&spheres, sphere_bytes));
    CUDA_CHECK(cudaMalloc((void **)&materials, material_bytes));
    if (light_bytes > 0)
        CUDA_CHECK(cudaMalloc((void **)&lights, light_bytes));
    CUDA_CHECK(cudaMalloc((void **)&total, sizeof *total));
    CUDA_CHECK(cudaMemcpy(spheres, world.spheres, sphere_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(materials, world.materials, material_bytes, cudaMemcpyHostToDevice));
    if (light_bytes > 0)
        CUDA_CHECK(cudaMemcpy(lights, world.lights, light_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(total, 0, sizeof *total));
    world.spheres = spheres;
    world.materials = materials;
    world.lights = lights;
    long long pixels = (long long)world.width * world.height;
    pt_count_rays_kernel<<<(unsigned)((pixels + COUNT_BLOCK - 1) / COUNT_BLOCK), COUNT_BLOCK>>>(
        world, samples, estimator, total);
    CUDA_CHECK_LAUNCH("pt_count_rays_kernel");
    unsigned long long rays = 0;
    CUDA_CHECK(cudaMemcpy(&rays, total, sizeof rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(spheres));
    CUDA_CHECK(cudaFree(materials));
    CUDA_CHECK(cudaFree(lights)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree(total));
    return rays;
}
