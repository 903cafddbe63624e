/* The kernel: persistent warps whose lanes are refilled. Each lane walks one ray at a time; when
 * its walk ends it starts its pixel's next ray, or, its pixel done, the next pixel of the band,
 * which the warp takes 32 at a time (an 8x4 tile) from a counter in global memory. */

/* A warp's pixels come in tiles of 8x4, as in stage 30. */
#define TILE_WIDTH 8
#define TILE_HEIGHT 4
/* A lane whose walk has ended waits until this many of its warp's lanes wait too (or every lane
 * still walking has its pixel): then the waiting lanes move on together, so that the code between
 * walks runs for several lanes at once, not for one lane at a time. */
#ifndef REFILL_LANES
#define REFILL_LANES 16
#endif

/* Renders the rows first_row .. end_row - 1 of the image (one band). The band's pixels are a
 * stream of tiles, across then down, 32 pixels a tile across its rows; *next_pixel (0 at the
 * launch) counts the pixels of the stream handed out. Every warp takes tiles until none is left. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row,
                  unsigned int *next_pixel)
{
    __shared__ struct pixel_state states[BLOCK_THREADS_MAX];
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    struct pixel_state *state = &states[thread];
    /* The warp's lanes: 32, or fewer in a block whose size is no multiple of 32. */
    const int lane = thread % 32;
    const int lanes = min(32, (int)(blockDim.x * blockDim.y) - (thread - lane));
    const unsigned int warp_lanes = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    const unsigned int lanes_before = (1u << lane) - 1u;
    const int tiles_across = (width + TILE_WIDTH - 1) / TILE_WIDTH;
    const int tile_rows = (end_row - first_row + TILE_HEIGHT - 1) / TILE_HEIGHT;
    const unsigned int stream_pixels = (unsigned int)tiles_across * tile_rows * 32u;

    Pending stack[TREE_STACK];
    struct walk walk;
    enum pixel_phase phase = NEEDS_PIXEL;
    bool walking = false;
    /* The warp's tile: its first pixel in the stream, and how many of its 32 are not yet handed
     * out. The same in every lane. */
    unsigned int tile = 0;
    int tile_left = 0;
    bool tiles_left = true;
    for (;;) {
        if (walking) {
            walking = step_walk(&scene, &walk, stack);
        }
        const unsigned int waiting = __ballot_sync(warp_lanes, !walking);
        if (__popc(waiting) < REFILL_LANES && waiting != warp_lanes) {
            continue;
        }
        /* The lanes whose walk has ended take their pixel's next walk, or end their pixel. */
        if (!walking && phase != NEEDS_PIXEL) {
            if (phase == PRIMARY) {
                phase = after_primary(framebuffer, &scene, state, &walk);
            } else if (phase == SHADOW) {
                phase = after_shadow(&scene, state, &walk);
            } else if (phase == REFLECTION) {
                phase = after_reflection(framebuffer, &scene, state, &walk);
            } else {
                phase = after_reflection_shadow(framebuffer, &scene, state, &walk);
            }
            walking = phase != NEEDS_PIXEL;
        }
        /* The lanes without a pixel take the next ones of the warp's tile, in lane order, and the
         * warp a new tile when its own is handed out. A pixel past the image's edge is skipped. */
        unsigned int needing = __ballot_sync(warp_lanes, phase == NEEDS_PIXEL);
        while (needing != 0 && tiles_left) {
            if (tile_left == 0) {
                unsigned int first = 0;
                if (lane == 0) {
                    first = atomicAdd(next_pixel, 32u);
                }
                tile = __shfl_sync(warp_lanes, first, 0);
                tile_left = 32;
                if (tile >= stream_pixels) {
                    tiles_left = false;
                    break;
                }
            }
            const int rank = __popc(needing & lanes_before);
            if (phase == NEEDS_PIXEL && rank < tile_left) {
                const unsigned int in_tile = 32u - tile_left + rank;
                const unsigned int tile_index = tile / 32u;
                const int i = (int)(tile_index % tiles_across) * TILE_WIDTH + in_tile % TILE_WIDTH;
                const int j = first_row + (int)(tile_index / tiles_across) * TILE_HEIGHT +
                              in_tile / TILE_WIDTH;
                if (i < width && j < end_row) {
                    start_pixel(&scene, state, &walk, plane_x, plane_y, width, i, j);
                    phase = PRIMARY;
                    walking = true;
                }
            }
            tile_left = max(tile_left - __popc(needing), 0);
            needing = __ballot_sync(warp_lanes, phase == NEEDS_PIXEL);
        }
        if (__ballot_sync(warp_lanes, walking) == 0) {
            break;
        }
    }
}
