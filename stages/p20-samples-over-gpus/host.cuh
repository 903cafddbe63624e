/* The host half over several GPUs: p14's phases, each device step taken once a GPU (its
 * allocations, its upload of the scene, its build of the tree, its kernel on its samples), then
 * the sums added on the first GPU, its image resolved there and copied home. */

#define MAX_GPUS OPTIONS_MAX_GPUS

/* One GPU's share of the frame: its samples, and everything it renders them with. */
struct gpu_share {
    int device;                    /* its CUDA device number */
    int first_sample, end_sample;  /* its samples of every pixel: first_sample .. end_sample - 1 */
    struct device_paths d;         /* its sums, counter, image, scene, tree and build buffers */
    cudaEvent_t start, rendered;   /* around its kernel, in its default stream */
};

/* GPU g (device first_device + g) renders samples samples * g / gpu_count up to samples * (g + 1)
 * / gpu_count of every pixel, as even as whole samples allow (gpu_count at most samples). */
static void split_samples(struct gpu_share *gpus, int first_device, int gpu_count, int samples)
{
    for (int g = 0; g < gpu_count; g++) {
        gpus[g].device = first_device + g;
        gpus[g].first_sample = (int)((long long)samples * g / gpu_count);
        gpus[g].end_sample = (int)((long long)samples * (g + 1) / gpu_count);
    }
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t channels = (size_t)count * 3;
    size_t sums_bytes = channels * sizeof(unsigned long long);

    /* The GPUs: --device and the --gpus - 1 after it (stage_main.c checked they exist), or every
     * GPU from --device on; no more than the samples. gpu_open made the first one's context and
     * timed it; the others' are made here, before the first phase, and timed with it. */
    struct gpu_share gpus[MAX_GPUS];
    int device_count;
    CUDA_CHECK(cudaGetDeviceCount(&device_count));
    int gpu_count = job->gpus ? job->gpus : device_count - job->device;
    gpu_count = gpu_count < job->samples ? gpu_count : job->samples;
    gpu_count = gpu_count < MAX_GPUS ? gpu_count : MAX_GPUS;
    split_samples(gpus, job->device, gpu_count, job->samples);
    for (int g = 1; g < gpu_count; g++) {
        double context_start = timer_now_us();
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        CUDA_CHECK(cudaFree(0)); /* the first runtime call that needs a context creates it */
        report->context_creation_us += timer_now_us() - context_start;
    }
    /* The first GPU reads the others' sums: peer access where the node allows it (NVLink, or a
     * PCIe switch), so that the copies go from GPU to GPU, not through the host's memory. */
    CUDA_CHECK(cudaSetDevice(job->device));
    for (int g = 1; g < gpu_count; g++) {
        int can_access;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, job->device, gpus[g].device));
        if (can_access) { /* once a pair in a process: stage_render runs once */
            CUDA_CHECK(cudaDeviceEnablePeerAccess(gpus[g].device, 0));
        }
    }
    report_metric(report, "gpus", gpu_count, "gpus");

    /* Every GPU's allocations; the first GPU's also a buffer for another GPU's sums. */
    double start = timer_now_us();
    unsigned long long *other_sums = NULL;
    for (int g = 0; g < gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        paths_alloc(&gpus[g].d, count, world->sphere_count);
        CUDA_CHECK(cudaEventCreate(&gpus[g].start));
        CUDA_CHECK(cudaEventCreate(&gpus[g].rendered));
        if (g == 0 && gpu_count > 1) {
            CUDA_CHECK(cudaMalloc((void **)&other_sums, sums_bytes));
        }
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = 0;
    for (int g = 0; g < gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        report->bytes_to_device += paths_upload_scene(&gpus[g].d, world);
    }
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    /* The tree on every GPU, one after the other (each build waits for its GPU); the build phase
     * is their sum. Then each GPU's counter of paths set to its first sample's first path. */
    for (int g = 0; g < gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        build_tree(&gpus[g].d, world->sphere_count, report);
        const unsigned long long first_path = (unsigned long long)gpus[g].first_sample * count;
        CUDA_CHECK(cudaMemcpy(gpus[g].d.next_path, &first_path, sizeof first_path,
                              cudaMemcpyHostToDevice));
    }

    /* Every GPU's kernel on its samples: p17's, its last path that of the GPU's end_sample - 1
     * (the kernel stops where the paths of end_sample samples end). Then, in the first GPU's
     * default stream, each other GPU's sums, once its kernel has ended (a wait on its event),
     * copied over and added, in the GPUs' order; then the image resolved. kernel_events is the
     * first GPU's span over all of it. */
    CUDA_CHECK(cudaSetDevice(gpus[0].device));
    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int g = 0; g < gpu_count; g++) {
        const struct gpu_share *gpu = &gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        int blocks = resident_blocks((const void *)persistent_kernel);
        CUDA_CHECK(cudaEventRecord(gpu->start, 0));
        persistent_kernel<<<blocks, BLOCK_THREADS>>>(gpu->d.sums, gpu->d.next_path,
                                                     world->camera, world->sky, gpu->d.scene,
                                                     job->width, job->height, gpu->end_sample,
                                                     job->max_depth);
        CUDA_CHECK_LAUNCH("persistent_kernel");
        CUDA_CHECK(cudaEventRecord(gpu->rendered, 0));
    }
    CUDA_CHECK(cudaSetDevice(gpus[0].device));
    int channel_blocks = (int)((channels + BLOCK_THREADS - 1) / BLOCK_THREADS);
    for (int g = 1; g < gpu_count; g++) {
        CUDA_CHECK(cudaStreamWaitEvent(0, gpus[g].rendered, 0));
        CUDA_CHECK(cudaMemcpyPeerAsync(other_sums, gpus[0].device, gpus[g].d.sums,
                                       gpus[g].device, sums_bytes, 0));
        add_sums_kernel<<<channel_blocks, BLOCK_THREADS>>>(gpus[0].d.sums, other_sums, channels);
        CUDA_CHECK_LAUNCH("add_sums_kernel");
    }
    resolve_kernel<<<channel_blocks, BLOCK_THREADS>>>(gpus[0].d.rgb, gpus[0].d.sums, channels,
                                                      job->samples);
    CUDA_CHECK_LAUNCH("resolve_kernel");
    kernel_timer_launches_done(&timer); /* kernel_events: the GPUs' work, not the host's below */

    /* While the GPUs render: the image's pages (p11's host allocation), each step timed. */
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

    /* Each GPU's kernel on its own events: the slowest and the fastest; and kernel_events less
     * the slowest, about how long the first GPU went on after it (the sums' copies and additions,
     * and the resolve; also the few microseconds between the first GPU's timer and the launch of
     * the slowest GPU's kernel). */
    float slowest_ms = 0, fastest_ms = 0;
    for (int g = 0; g < gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        float gpu_ms;
        CUDA_CHECK(cudaEventSynchronize(gpus[g].rendered));
        CUDA_CHECK(cudaEventElapsedTime(&gpu_ms, gpus[g].start, gpus[g].rendered));
        slowest_ms = gpu_ms > slowest_ms ? gpu_ms : slowest_ms;
        fastest_ms = g == 0 || gpu_ms < fastest_ms ? gpu_ms : fastest_ms;
    }
    CUDA_CHECK(cudaSetDevice(gpus[0].device));
    report_metric(report, "render_events", slowest_ms * 1000.0, "us");
    report_metric(report, "render_events_fastest", fastest_ms * 1000.0, "us");
    report_metric(report, "reduce_events", report->kernel_event_us - slowest_ms * 1000.0, "us");

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(rgb, gpus[0].d.rgb, channels, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = channels;

    pt_render_job_frame_ready_rgb8(job, rgb);

    start = timer_now_us();
    for (int g = 0; g < gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(gpus[g].device));
        paths_free(&gpus[g].d);
        CUDA_CHECK(cudaEventDestroy(gpus[g].start));
        CUDA_CHECK(cudaEventDestroy(gpus[g].rendered));
    }
    CUDA_CHECK(cudaSetDevice(gpus[0].device));
    CUDA_CHECK(cudaFree(other_sums));
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(rgb));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(rgb, rgb_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
}
