/* The accumulation kernel: each frame's colours added to the pixel sums in device memory. */

__global__ void accumulate_kernel(const struct spec_vec3 *colours, unsigned long long *sums,
                                  int count)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    struct spec_vec3 colour = colours[p];
    sums[3 * p + 0] += pt_fixed(colour.x);
    sums[3 * p + 1] += pt_fixed(colour.y);
    sums[3 * p + 2] += pt_fixed(colour.z);
}
