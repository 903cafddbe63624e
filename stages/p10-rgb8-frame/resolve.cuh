/* Channel c of the image from its sum: what the host did in p09 (pt_render_job_sums_ready). */
__global__ void resolve_kernel(unsigned char *rgb, const unsigned long long *sums,
                               size_t channels, int samples)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < channels)
        rgb[c] = pt_pixel_channel(sums[c], samples);
}
