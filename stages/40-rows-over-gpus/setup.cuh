/* Stage 21's setup launch, for one GPU's rows: blocks 0 .. tile_blocks - 1 bin the tiles from the
 * GPU's first tile row on (first_tile_word: that row's first word), the next light_blocks bin the
 * whole light buffer, the rest write the image-plane tables. */
__global__ void setup_kernel(unsigned int *tile_bins, unsigned int *light_bins, float *plane_x,
                             float *plane_y, int tiles_x, int tiles_y, int mask_words,
                             int sphere_count, int width, int height, int first_tile_word,
                             int tile_blocks, int light_blocks, float shadow_near)
{
    const int block = blockIdx.x;
    if (block < tile_blocks) {
        bin_tiles(first_tile_word + block * blockDim.x + threadIdx.x, tile_bins, tiles_x, tiles_y,
                  mask_words, sphere_count, width, height);
    } else if (block < tile_blocks + light_blocks) {
        bin_light((block - tile_blocks) * blockDim.x + threadIdx.x, light_bins, mask_words,
                  sphere_count, shadow_near);
    } else {
        plane_tables((block - tile_blocks - light_blocks) * blockDim.x + threadIdx.x, plane_x,
                     plane_y, width, height);
    }
}
