/* The chapter's host half, from stage 22 on: the frame buffer in host pages registered with the
 * GPU, the scene's arrays in pinned memory, the kernel and copy phases of the first frame (the
 * bands: bands.cuh), the steady-state frames of --frames N, and the frees, every phase timed. What
 * a stage's tree needs is its build's (frame.cuh: frame_resources, host_scene, upload_scene;
 * build_tree.cuh: allocate_tree, build_tree, free_tree). A tree built on the host
 * (TREE_BUILT_ON_HOST) is built before the upload; one built on the GPU, after. */

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    const size_t n = (size_t)scene->sphere_count;

    double start = timer_now_us();
    struct frame_resources frame;
    size_t framebuffer_mapped_bytes;
    unsigned char *framebuffer =
        (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
    frame.framebuffer = framebuffer;
    if (!framebuffer) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the frame buffer (%zu bytes) failed\n",
                stage_manifest.name, framebuffer_bytes);
        exit(1);
    }
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_map", start);
    start = timer_now_us();
    host_pages_touch(framebuffer, framebuffer_mapped_bytes, 0);
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_touch", start);
    start = timer_now_us();
    CUDA_CHECK(cudaHostRegister(framebuffer, framebuffer_mapped_bytes, cudaHostRegisterDefault));
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_register", start);
    start = timer_now_us();
    struct host_scene host = {};
    host.sphere_count = scene->sphere_count;
    CUDA_CHECK(cudaMallocHost((void **)&host.spheres, n * sizeof(Sphere)));
    Sphere *spheres = host.spheres;
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaMallocHost((void **)&light, sizeof(Light)));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaMallocHost((void **)&camera, sizeof(Camera)));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    camera->background_unit = make_float3(camera->background.x / 255.0f,
                                          camera->background.y / 255.0f,
                                          camera->background.z / 255.0f);
    /* The specular term ks s^32 c must stay under half an ulp of the lighting, which is at least
     * the ambient term a c (ulp(x) > x / 2^24): s^32 < a / ks / 2^25, taken 4 times smaller, and
     * 0.97 of it squared for the test's rounding. Below 0.03 the 32nd power is 0 in floats
     * whatever the scene; that cutoff serves where a / ks is tiny or zero. */
    double cutoff = 0.03;
    if (light->specular > 0.0f && light->ambient >= 0x1p-100f * light->specular) {
        const double derived = pow((double)light->ambient / light->specular * 0x1p-27, 1.0 / 32);
        cutoff = derived > cutoff ? derived : cutoff;
    }
    light->negligible_cosine_squared = (float)(0.97 * cutoff * cutoff);
    /* The per-sphere constants, with the kernel's arithmetic (the host code is built without
     * fused multiply-add too, so each rounds the same). */
    CUDA_CHECK(cudaMallocHost((void **)&host.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&host.from_camera, n * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        host.geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y,
                                       spheres[s].center.z, radius_squared);
        host.from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
    }
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMalloc((void **)&frame.device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.spheres, n * sizeof(Sphere)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.from_camera, n * sizeof(float4)));
    allocate_tree(&frame, scene); /* the tree and its build's buffers */
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_x, (size_t)width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_y, (size_t)height * sizeof(float)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame.copy_stream));
    int device, multiprocessors, blocks_per_multiprocessor;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_multiprocessor, render_kernel, job->block_x * job->block_y, 0));
    frame.resident_blocks = multiprocessors * blocks_per_multiprocessor;
    CUDA_CHECK(cudaEventCreate(&frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

#ifdef TREE_BUILT_ON_HOST
    build_tree(&host, scene, report);
#endif
    start = timer_now_us();
    report->bytes_to_device += upload_scene(&host, light, camera, &frame.scene);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
#ifndef TREE_BUILT_ON_HOST
    build_tree(&frame, report);
#endif

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    int bands = launch_bands(&frame, threads, width, height);
    /* The kernel phase: until the last band is rendered (copies already under way inside it). */
    float kernels_ms = 0;
    for (int b = 0; b < bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(frame.band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, frame.bands_start, frame.band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;

    /* The copy phase: what is left of the copies once every band is rendered. */
    start = timer_now_us();
    wait_for_copies(&frame);
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* Steady state: frames 2..N reuse everything above, the tree built again each frame; each
     * is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
        report_init(&steady, report->stage);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
#ifdef TREE_BUILT_ON_HOST
            build_tree(&host, scene, &steady);
#endif
            upload_scene(&host, light, camera, &frame.scene);
#ifndef TREE_BUILT_ON_HOST
            build_tree(&frame, &steady);
#endif
            launch_bands(&frame, threads, width, height);
            wait_for_copies(&frame);
            double frame_us = timer_now_us() - frame_start;
            frames_us += frame_us;
            fastest_us = f == 1 || frame_us < fastest_us ? frame_us : fastest_us;
        }
        report_metric(report, "frames", job->frames, "frames");
        report_metric(report, "steady_frame", frames_us / (job->frames - 1), "us");
        report_metric(report, "steady_frame_min", fastest_us, "us");
    }

    start = timer_now_us();
    CUDA_CHECK(cudaFree(frame.device_framebuffer));
    CUDA_CHECK(cudaFree((void *)frame.scene.spheres));
    CUDA_CHECK(cudaFree((void *)frame.scene.geometry));
    CUDA_CHECK(cudaFree((void *)frame.scene.from_camera));
    free_tree(&frame);
    CUDA_CHECK(cudaFree(frame.plane_x));
    CUDA_CHECK(cudaFree(frame.plane_y));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamDestroy(frame.copy_stream));
    CUDA_CHECK(cudaEventDestroy(frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready_rgb8(job, framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(framebuffer));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(framebuffer, framebuffer_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
    start = timer_now_us();
    CUDA_CHECK(cudaFreeHost(host.spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(host.geometry));
    CUDA_CHECK(cudaFreeHost(host.from_camera));
#ifdef TREE_BUILT_ON_HOST
    bvh_free(&host.bvh);
#endif
    report_phase_since(report, PHASE_HOST_FREE, start);
}
