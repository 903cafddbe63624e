/* The host half: each phase of the render, in order, timed into the report. */

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t channels = (size_t)count * 3;

    double start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->sphere_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    build_tree(&d, world->sphere_count, report);

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 d.scene, job->width, job->height,
                                                 job->samples, job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
    int resolve_blocks = (int)((channels + BLOCK_THREADS - 1) / BLOCK_THREADS);
    resolve_kernel<<<resolve_blocks, BLOCK_THREADS>>>(d.rgb, d.sums, channels, job->samples);
    CUDA_CHECK_LAUNCH("resolve_kernel");
    kernel_timer_launches_done(&timer); /* kernel_events: the GPU's work, not the host's below */

    /* While the GPU renders: the image's pages (p11's host allocation), each step timed. */
    start = timer_now_us();
    size_t rgb_mapped_bytes;
    unsigned char *rgb = (unsigned char *)host_pages_map(channels, &rgb_mapped_bytes);
    if (!rgb) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the 8-bit image (%zu bytes) failed\n",
                cuda_check_program, channels);
        exit(1);
    }
    double now = timer_now_us();
    report_metric(report, "host_map", now - start, "us");
    start = now;
    host_pages_touch(rgb, rgb_mapped_bytes, 0);
    now = timer_now_us();
    report_metric(report, "host_touch", now - start, "us");
    start = now;
    CUDA_CHECK(cudaHostRegister(rgb, rgb_mapped_bytes, cudaHostRegisterDefault));
    report_metric(report, "host_register", timer_now_us() - start, "us");
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
    CUDA_CHECK(cudaHostUnregister(rgb));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(rgb, rgb_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
}
