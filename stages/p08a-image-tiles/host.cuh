/* The host half: each phase of the render, in order, timed into the report. */

/* Where tile t of `tiles` starts along a side of `length` pixels: tile t covers
 * [tile_start(t), tile_start(t + 1)), at least one pixel since there are no more tiles than
 * pixels a side (checked by main). Within today's limits t * length is at most 1024 x 32768;
 * it is taken in 64 bits so that raising them cannot overflow it. */
static int tile_start(int t, int length, int tiles)
{
    return (int)((long long)t * length / tiles);
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)path_kernel, BLOCK_THREADS, 0);
    int tiles = job->tiles;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int ty = 0; ty < tiles; ++ty) {
        int top = tile_start(ty, job->height, tiles);
        int tile_height = tile_start(ty + 1, job->height, tiles) - top;
        for (int tx = 0; tx < tiles; ++tx) {
            int left = tile_start(tx, job->width, tiles);
            int tile_width = tile_start(tx + 1, job->width, tiles) - left;
            unsigned long long paths = (unsigned long long)tile_width * tile_height * job->samples;
            unsigned long long blocks = (paths + BLOCK_THREADS - 1) / BLOCK_THREADS;
            if (blocks > INT_MAX) { /* a grid's x dimension holds 2^31 - 1 blocks */
                fprintf(stderr,
                        "%s: error: a %dx%d tile at %d samples is %llu paths, more than one "
                        "launch holds (%llu): use more --tiles\n",
                        cuda_check_program, tile_width, tile_height, job->samples, paths,
                        (unsigned long long)INT_MAX * BLOCK_THREADS);
                exit(2);
            }
            path_kernel<<<(unsigned)blocks, BLOCK_THREADS>>>(
                d.sums, world->camera, world->sky, world->sphere_count, job->width, job->height,
                left, top, tile_width, tile_height, job->samples, job->max_depth);
            CUDA_CHECK_LAUNCH("path_kernel");
        }
    }
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(sums, d.sums, sum_bytes, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = sum_bytes;

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
