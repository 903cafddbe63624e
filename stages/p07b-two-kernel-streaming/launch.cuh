/* The two kernels launched over a stream's capacity: the regeneration and the extension. */

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

static void launch_extend(const struct device_paths *d, const struct pt_world *world, int input)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    extend_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[input], d->streams[1 - input], d->counters,
                                             input, d->sums, world->sphere_count, world->sky,
                                             world->max_depth);
    CUDA_CHECK_LAUNCH("extend_kernel");
}
