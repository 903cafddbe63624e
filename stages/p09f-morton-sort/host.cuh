/* The host half: each phase of the render, in order, timed into the report. */

/* The Morton box: the camera and the spheres of at most MORTON_SMALL_RADIUS, grown by
 * MORTON_BOX_MARGIN each way, cut into MORTON_CELLS along each axis. */
static struct morton_box origin_box(const struct pt_world *world)
{
    float low[3] = {world->camera.x, world->camera.y, world->camera.z};
    float high[3] = {world->camera.x, world->camera.y, world->camera.z};
    for (int s = 0; s < world->sphere_count; ++s) {
        struct pt_sphere sphere = world->spheres[s];
        if (sphere.radius > MORTON_SMALL_RADIUS)
            continue;
        float centre[3] = {sphere.centre.x, sphere.centre.y, sphere.centre.z};
        for (int a = 0; a < 3; ++a) {
            if (centre[a] - sphere.radius < low[a])
                low[a] = centre[a] - sphere.radius;
            if (centre[a] + sphere.radius > high[a])
                high[a] = centre[a] + sphere.radius;
        }
    }
    float cells[3];
    for (int a = 0; a < 3; ++a) {
        low[a] -= MORTON_BOX_MARGIN;
        high[a] += MORTON_BOX_MARGIN;
        cells[a] = (float)MORTON_CELLS / (high[a] - low[a]);
    }
    struct morton_box box;
    box.low = spec_v3(low[0], low[1], low[2]);
    box.cells_per_unit = spec_v3(cells[0], cells[1], cells[2]);
    return box;
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

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 origin_box(world), world->sphere_count,
                                                 job->width, job->height, job->samples,
                                                 job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
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
