/* The host half: host and device memory, the frames (the camera kernel, then the intersection
 * and scatter kernels once per segment), each frame copied to the host and added to the pixel
 * sums there, every phase timed into the report. */

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);
    size_t colour_bytes = (size_t)count * sizeof(struct spec_vec3);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    for (size_t c = 0; c < (size_t)count * 3; ++c)
        sums[c] = 0;
    struct spec_vec3 *host_colours = (struct spec_vec3 *)host_alloc_or_exit(colour_bytes, "colours");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->sphere_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)scatter_kernel, BLOCK_THREADS, 0);
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        camera_kernel<<<blocks, BLOCK_THREADS>>>(d.rays, d.samples, world->camera, job->width,
                                                 job->height, (unsigned)frame);
        CUDA_CHECK_LAUNCH("camera_kernel");
        for (int segment = 0; segment < job->max_depth; ++segment) {
            if (job->record_dir && frame == 0 && segment == job->record_segment)
                record_paths(job, &d, segment);
            launch_intersect(&d, world, count);
            launch_scatter(&d, world, count, (unsigned)frame, segment);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        kernel_timer_part(&timer, report, "kernels");

        CUDA_CHECK(cudaMemcpy(host_colours, d.samples.colour, colour_bytes, cudaMemcpyDeviceToHost));
        kernel_timer_part(&timer, report, "frame_copy");
        report->bytes_to_host += colour_bytes;

        for (int p = 0; p < count; ++p) {
            unsigned long long *sum = sums + (size_t)p * 3;
            sum[0] += pt_fixed(host_colours[p].x);
            sum[1] += pt_fixed(host_colours[p].y);
            sum[2] += pt_fixed(host_colours[p].z);
        }
        kernel_timer_part(&timer, report, "host_accumulate");
    }
    kernel_timer_stop(&timer, report);
    check_heap(&d);

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    free(host_colours);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
