/* The image plane's x of every column and y of every row (width + height threads), with the
 * arithmetic each pixel used: the same bits, two divisions per column and row, not per pixel. */
__global__ void plane_kernel(float *plane_x, float *plane_y, int width, int height)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < width) {
        plane_x[index] = 2.0f * ((float)index + 0.5f) / (float)(width - 1) - 1.0f;
    } else if (index < width + height) {
        const int j = index - width;
        plane_y[j] = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    }
}
