/* The host half: each phase of the render, in order, timed into the report. */

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
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        path_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, world->camera, world->sky,
                                               world->sphere_count, job->width, job->height,
                                               (unsigned)frame, job->max_depth);
        CUDA_CHECK_LAUNCH("path_kernel");
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
