/* The kernel: persistent warps that take tiles. As many blocks as the GPU holds at once; each warp
 * takes the band's next 8x4 tile from a counter in global memory, renders its pixels, and takes
 * another, until the band's tiles are handed out. */

/* A warp's pixels: an 8x4 tile, as in stage 30. */
#define TILE_WIDTH 8
#define TILE_HEIGHT 4

/* Renders the rows first_row .. end_row - 1 of the image (one band). Its tiles are numbered across,
 * then down; *next_tile (0 at the launch) counts those handed out. A warp of fewer than 32 lanes
 * (a block whose size is no multiple of 32) takes its tile's pixels in turns. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row,
                  unsigned int *next_tile)
{
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int lane = thread % 32;
    const int lanes = min(32, (int)(blockDim.x * blockDim.y) - (thread - lane));
    const unsigned int warp_lanes = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    const unsigned int tiles_across = (width + TILE_WIDTH - 1) / TILE_WIDTH;
    const unsigned int tiles =
        tiles_across * ((end_row - first_row + TILE_HEIGHT - 1) / TILE_HEIGHT);
    for (;;) {
        unsigned int tile = 0;
        if (lane == 0) {
            tile = atomicAdd(next_tile, 1u);
        }
        tile = __shfl_sync(warp_lanes, tile, 0);
        if (tile >= tiles) {
            return;
        }
        for (int k = lane; k < TILE_WIDTH * TILE_HEIGHT; k += lanes) {
            const int i = (int)(tile % tiles_across) * TILE_WIDTH + k % TILE_WIDTH;
            const int j = first_row + (int)(tile / tiles_across) * TILE_HEIGHT + k / TILE_WIDTH;
            if (i < width && j < end_row) {
                render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j);
            }
        }
    }
}
