/* The path kernel: a thread a pixel traces sample `frame` and adds it to the pixel's sums. */

__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            int light_count, struct spec_vec3 camera, struct spec_vec3 sky,
                            int sphere_count, int width, int height, unsigned frame,
                            int max_depth)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height)
        return;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, lights,
                                         light_count, frame, max_depth);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}
