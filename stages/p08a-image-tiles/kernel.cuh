/* One thread per path of the tile whose top left pixel is (tile_x, tile_y): every sample of
 * every pixel of the tile, in one launch (seed 002's tile: width x height x iterations paths).
 * Path k is sample k / (tile pixels) of the tile's pixel k % (tile pixels), numbered row by row
 * within the tile, so neighbouring threads trace neighbouring pixels of one frame, as in p08.
 * Two samples of a pixel now run in the same launch: the sums are added with atomics, which
 * integer sums allow in any order (SPEC-PATH-TRACING.md section 4). */
__global__ void path_kernel(unsigned long long *sums, struct spec_vec3 camera,
                            struct spec_vec3 sky, int sphere_count, int width, int height,
                            int tile_x, int tile_y, int tile_width, int tile_height, int samples,
                            int max_depth)
{
    unsigned long long tile_pixels = (unsigned long long)tile_width * (unsigned long long)tile_height;
    unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= tile_pixels * (unsigned long long)samples)
        return;
    int in_tile = (int)(k % tile_pixels);
    unsigned frame = (unsigned)(k / tile_pixels);
    int p = (tile_y + in_tile / tile_width) * width + tile_x + in_tile % tile_width;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, frame,
                                         max_depth);
    atomicAdd(&sums[3 * (size_t)p + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)p + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)p + 2], (unsigned long long)pt_fixed(colour.z));
}
