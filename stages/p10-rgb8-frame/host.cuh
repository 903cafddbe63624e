/* The host half: each phase of the render, in order, timed into the report. */

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t channels = (size_t)count * 3;

    double start = timer_now_us();
    unsigned char *rgb = (unsigned char *)host_alloc_or_exit(channels, "8-bit image");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 world->sphere_count, job->width, job->height,
                                                 job->samples, job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
    int resolve_blocks = (int)((channels + BLOCK_THREADS - 1) / BLOCK_THREADS);
    resolve_kernel<<<resolve_blocks, BLOCK_THREADS>>>(d.rgb, d.sums, channels, job->samples);
    CUDA_CHECK_LAUNCH("resolve_kernel");
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(rgb, d.rgb, channels, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = channels;

    pt_render_job_frame_ready_rgb8(job, rgb);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(rgb);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
