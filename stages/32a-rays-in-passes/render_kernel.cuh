/* The passes' kernels: render_kernel's warps take tiles of pixels, the queues' kernels consecutive
 * entries. A warp's pixels: an 8x4 tile, not a row of 32, wherever the block is made of whole
 * tiles. */
#ifndef TILE_WIDTH
#define TILE_WIDTH 8
#define TILE_HEIGHT 4
#endif

/* Pass 1: the primary rays of the rows first_row .. end_row - 1 of the image (one band), the hits
 * queued in `hits`: the block's row of blocks (blockIdx.y counts from first_row), then every
 * gridDim.y-th row of blocks below it. The block covers blockDim.x x blockDim.y pixels as before,
 * but each of its warps takes a tile of them: warp w (threads 32w .. 32w + 31 in the order
 * threadIdx.x, then threadIdx.y) the w-th tile, across the block's row of tiles first, its lanes
 * across the tile's rows. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row,
                  struct ray_queue hits)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (blockDim.x % TILE_WIDTH == 0 && blockDim.y % TILE_HEIGHT == 0) {
        const int thread = threadIdx.y * blockDim.x + threadIdx.x;
        const int lane = thread % 32, warp = thread / 32;
        const int tiles_across = blockDim.x / TILE_WIDTH;
        x = warp % tiles_across * TILE_WIDTH + lane % TILE_WIDTH;
        y = warp / tiles_across * TILE_HEIGHT + lane / TILE_WIDTH;
    }
    const int i = blockIdx.x * blockDim.x + x;
    if (i >= width) {
        return;
    }
    for (int j = first_row + blockIdx.y * blockDim.y + y; j < end_row;
         j += gridDim.y * blockDim.y) {
        render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j, &hits);
    }
}

/* Pass 2: every entry of the hits' queue, as many as pass 1 counted, one a thread (the grid's
 * threads stride through them, the lanes of a warp on consecutive entries); reflections that hit
 * go to `reflections`. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    secondary_kernel(unsigned char *framebuffer, Scene scene, struct ray_queue hits,
                     struct ray_queue reflections)
{
    const int count = *hits.count;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        trace_secondary(framebuffer, &scene, &hits, k, &reflections);
    }
}

/* Pass 3: every entry of the reflections' queue, as pass 2 takes the hits'. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    reflection_shadow_kernel(unsigned char *framebuffer, Scene scene,
                             struct ray_queue reflections)
{
    const int count = *reflections.count;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        trace_reflection_shadow(framebuffer, &scene, &reflections, k);
    }
}
