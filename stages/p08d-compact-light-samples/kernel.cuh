/* The path kernel: a thread a pixel traces sample `frame` and adds it to the pixel's sums. A
 * block is a tile: block b renders tile b and draws its pool, an entry a thread. */

#if BLOCK_THREADS != PT_LIGHT_POOL_SIZE
#error "a block draws its tile's pool, one entry a thread: BLOCK_THREADS is PT_LIGHT_POOL_SIZE"
#endif

__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            int light_count, struct spec_vec3 camera, struct spec_vec3 sky,
                            int sphere_count, int width, int height, unsigned frame,
                            int max_depth)
{
    __shared__ struct pool_entry pool[PT_LIGHT_POOL_SIZE];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    /* Every thread of the block draws its entry and reaches the barrier, also one whose pixel
     * is past the image's end: it leaves only after. */
    if (light_count > 0)
        pool[threadIdx.x] = draw_pool_entry(light_count, blockIdx.x, frame, (int)threadIdx.x);
    __syncthreads();
    if (p >= width * height)
        return;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, pool,
                                         lights, light_count, frame, max_depth);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}
