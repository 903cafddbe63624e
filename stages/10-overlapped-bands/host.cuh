/* The host half, stage_render: the buffers, the scene's way to the GPU, the launch, the frame's
 * way back and the frees; every phase timed. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b goes to stream b % STREAM_COUNT */

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    size_t framebuffer_mapped_bytes;
    unsigned char *framebuffer =
        (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
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
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    unsigned char *device_framebuffer;
    Sphere *device_spheres;
    Light *device_light;
    Camera *device_camera;
    CUDA_CHECK(cudaMalloc((void **)&device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_spheres, spheres_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_light, sizeof(Light)));
    CUDA_CHECK(cudaMalloc((void **)&device_camera, sizeof(Camera)));
    cudaStream_t streams[STREAM_COUNT];
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&streams[s]));
    }
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
    CUDA_CHECK(cudaEventCreate(&bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(device_spheres, spheres, spheres_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_light, light, sizeof(Light), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_camera, camera, sizeof(Camera), cudaMemcpyHostToDevice));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera);

    dim3 threads(job->block_x, job->block_y);
    size_t shared_bytes = spheres_bytes; /* the block's copy of the spheres */
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    start = timer_now_us();
    /* Recorded in the legacy default stream, which the streams created above wait for. */
    CUDA_CHECK(cudaEventRecord(bands_start, 0));
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = streams[b % STREAM_COUNT];
        dim3 blocks((width + threads.x - 1) / threads.x,
                    (end_row - first_row + threads.y - 1) / threads.y);
        render_kernel<<<blocks, threads, shared_bytes, stream>>>(
            device_framebuffer, device_spheres, scene->sphere_count, device_light, device_camera,
            width, height, first_row, end_row);
        CUDA_CHECK_LAUNCH("render_kernel");
        CUDA_CHECK(cudaEventRecord(band_rendered[b], stream));
        CUDA_CHECK(cudaMemcpyAsync(framebuffer + (size_t)first_row * row_bytes,
                                   device_framebuffer + (size_t)first_row * row_bytes,
                                   (size_t)(end_row - first_row) * row_bytes,
                                   cudaMemcpyDeviceToHost, stream));
    }
    /* The kernel phase: until the last band is rendered (copies already under way inside it). */
    float kernels_ms = 0;
    for (int b = 0; b < bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, bands_start, band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;

    /* The copy phase: what is left of the copies once every band is rendered. */
    start = timer_now_us();
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamSynchronize(streams[s]));
    }
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y,
                         shared_bytes);

    start = timer_now_us();
    CUDA_CHECK(cudaFree(device_framebuffer));
    CUDA_CHECK(cudaFree(device_spheres));
    CUDA_CHECK(cudaFree(device_light));
    CUDA_CHECK(cudaFree(device_camera));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    }
    CUDA_CHECK(cudaEventDestroy(bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(band_rendered[b]));
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
    CUDA_CHECK(cudaFreeHost(spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
