/* The sums of several GPUs made one: another GPU's sums, copied next to the first GPU's, added to
 * them, channel by channel. The sums are SPEC.md section 4's fixed point, whole numbers: their
 * addition is exact and its order changes no bit, so the sums are those one GPU would have made. */
__global__ void add_sums_kernel(unsigned long long *sums, const unsigned long long *other,
                                size_t channels)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < channels)
        sums[c] += other[c];
}
