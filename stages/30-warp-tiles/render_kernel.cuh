/* A warp's pixels: an 8x4 tile, not a row of 32, wherever the block is made of whole tiles. */
#ifndef TILE_WIDTH
#define TILE_WIDTH 8
#define TILE_HEIGHT 4
#endif

/* Renders the rows first_row .. end_row - 1 of the image (one band): the block's row of blocks
 * (blockIdx.y counts from first_row), then every gridDim.y-th row of blocks below it. The block
 * covers blockDim.x x blockDim.y pixels as before, but each of its warps takes a tile of them:
 * warp w (threads 32w .. 32w + 31 in the order threadIdx.x, then threadIdx.y) the w-th tile,
 * across the block's row of tiles first, its lanes across the tile's rows. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row)
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
        render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j);
    }
}
