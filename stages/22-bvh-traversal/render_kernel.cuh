/* Renders the rows first_row .. end_row - 1 of the image (one band): the block's row of blocks
 * (blockIdx.y counts from first_row), then every gridDim.y-th row of blocks below it. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= width) {
        return;
    }
    for (int j = first_row + blockIdx.y * blockDim.y + threadIdx.y; j < end_row;
         j += gridDim.y * blockDim.y) {
        render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j);
    }
}
