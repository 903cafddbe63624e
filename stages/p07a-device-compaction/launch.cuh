/* The kernels launched over a stream's capacity, for the render, --record and the benchmark. */

/* Every grid covers a stream's capacity: only the device knows how many slots hold paths. */
static void launch_regenerate(const struct device_paths *d, const struct pt_world *world,
                              int stream, unsigned long long total_paths, int *work_left)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    regenerate_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[stream], d->counters, stream,
                                                 d->capacity, total_paths, world->camera,
                                                 world->width, world->height, work_left);
    CUDA_CHECK_LAUNCH("regenerate_kernel");
}

static void launch_intersect(const struct device_paths *d, const struct pt_world *world,
                             int input)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    intersect_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[input], d->hits, d->counters,
                                                world->sphere_count);
    CUDA_CHECK_LAUNCH("intersect_kernel");
}

static void launch_scatter(const struct device_paths *d, const struct pt_world *world, int input)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    scatter_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[input], d->hits, d->streams[1 - input],
                                              d->counters, input, d->sums, world->sky,
                                              world->max_depth);
    CUDA_CHECK_LAUNCH("scatter_kernel");
}
