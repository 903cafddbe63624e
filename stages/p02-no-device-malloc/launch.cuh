/* The per-segment kernels launched over every path, for the render and for the benchmark. */

static void launch_intersect(const struct device_paths *d, const struct pt_world *world,
                             int count)
{
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    intersect_kernel<<<blocks, BLOCK_THREADS>>>(d->rays, d->hits, d->spheres,
                                                world->sphere_count, count);
    CUDA_CHECK_LAUNCH("intersect_kernel");
}

static void launch_scatter(const struct device_paths *d, const struct pt_world *world, int count,
                           unsigned frame, int segment)
{
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    scatter_kernel<<<blocks, BLOCK_THREADS>>>(d->rays, d->hits, d->samples, d->spheres,
                                              d->materials, world->sky, count, frame, segment,
                                              world->max_depth);
    CUDA_CHECK_LAUNCH("scatter_kernel");
}
