/* The host half of chapter 3's stages: the host buffers (the 8-bit frame buffer in 2 MiB pages,
 * registered with CUDA; the scene in pinned memory), the scene's upload, the kernel and copy
 * phases of the first frame, the steady-state frames of --frames N, and the frees, every phase
 * timed. What a stage changes, it defines in its own parts before this one (frame.cuh):
 *   struct frame_resources          what a frame needs that outlives it
 *   prepare_frame()                 what the frame takes from the scene, on the host
 *   allocate_frame(), free_frame()  the device allocation and device free phases
 * and (bands.cuh) launch_bands() and wait_for_copies(), the launches and copies of one frame.
 * From stage 19 on, each sphere's bounds go to global memory too. */

/* The scene into constant memory (an interactive renderer would change it between frames). */
static void upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                         const float4 *geometry, const float4 *from_camera, const float4 *bounds,
                         float4 *device_bounds, int sphere_count)
{
    CUDA_CHECK(cudaMemcpy(device_bounds, bounds, (size_t)sphere_count * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres,
                                  (size_t)sphere_count * sizeof(Sphere)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_geometry, geometry,
                                  (size_t)sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_from_camera, from_camera,
                                  (size_t)sphere_count * sizeof(float4)));
}

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

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
    Sphere *spheres;
    CUDA_CHECK(cudaMallocHost((void **)&spheres, spheres_bytes));
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
    /* The per-sphere constants, with the kernel's arithmetic (the host code is built without
     * fused multiply-add too, so each rounds the same). */
    float4 *geometry, *from_camera, *bounds;
    CUDA_CHECK(cudaMallocHost((void **)&geometry, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&from_camera, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&bounds, (size_t)scene->sphere_count * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                  radius_squared);
        from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
        bounds[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                1.01f * spheres[s].radius);
    }
    prepare_frame(&frame, scene, light, camera);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    /* With a PNG to write, its encoder's threads start now and wait for the bands' rows (timed
     * apart: the report's image_encoder_start). */
    struct band_arrival arrivals[BAND_COUNT];
    frame.arrivals = arrivals;
    frame.encoder = render_job_stream_png(job, framebuffer, (height + BAND_COUNT - 1) / BAND_COUNT);
    const bool streamed = frame.encoder != NULL;

    start = timer_now_us();
    allocate_frame(&frame, job, framebuffer_bytes);
    if (streamed) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&frame.arrival_stream, cudaStreamNonBlocking));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventCreateWithFlags(&frame.band_copied[b], cudaEventDisableTiming));
        }
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    upload_scene(spheres, light, camera, geometry, from_camera, bounds, frame.bounds,
                 scene->sphere_count);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera) +
                               3 * (size_t)scene->sphere_count * sizeof(float4);

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    int bands = launch_bands(&frame, threads, scene->sphere_count, width, height);
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
    const double frame_on_host = timer_now_us();
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* The PNG: what the threads have not deflated yet is done now on every core, then the file
     * is written (image_write: from frame_on_host to the file closed). Frames 2..N, if any, run
     * as in stage 21, with no encoder. */
    if (streamed) {
        CUDA_CHECK(cudaStreamSynchronize(frame.arrival_stream)); /* every band told */
        render_job_frame_ready_streamed(job, framebuffer, frame.encoder, frame_on_host);
        frame.encoder = NULL;
    }

    /* Steady state: frames 2..N reuse everything above; each is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            upload_scene(spheres, light, camera, geometry, from_camera, bounds, frame.bounds,
                         scene->sphere_count);
            launch_bands(&frame, threads, scene->sphere_count, width, height);
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
    free_frame(&frame);
    if (streamed) {
        CUDA_CHECK(cudaStreamDestroy(frame.arrival_stream));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventDestroy(frame.band_copied[b]));
        }
    }
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    if (!streamed) {
        render_job_frame_ready_rgb8(job, framebuffer);
    }

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(framebuffer));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(framebuffer, framebuffer_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
    start = timer_now_us();
    CUDA_CHECK(cudaFreeHost(spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(geometry));
    CUDA_CHECK(cudaFreeHost(from_camera));
    CUDA_CHECK(cudaFreeHost(bounds));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
