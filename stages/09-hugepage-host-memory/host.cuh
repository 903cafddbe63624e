/* The host half, stage_render: the buffers, the scene's way to the GPU, the launch, the frame's
 * way back and the frees; every phase timed. */

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
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(device_spheres, spheres, spheres_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_light, light, sizeof(Light), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_camera, camera, sizeof(Camera), cudaMemcpyHostToDevice));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera);

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    size_t shared_bytes = spheres_bytes; /* the block's copy of the spheres */
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads, shared_bytes>>>(device_framebuffer, device_spheres,
                                                     scene->sphere_count, device_light,
                                                     device_camera, width, height);
    CUDA_CHECK_LAUNCH("render_kernel");
    kernel_timer_stop(&timer, report); /* waits for the kernel: a launch returns at once */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y,
                         shared_bytes);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(framebuffer, device_framebuffer, framebuffer_bytes,
                          cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;

    start = timer_now_us();
    CUDA_CHECK(cudaFree(device_framebuffer));
    CUDA_CHECK(cudaFree(device_spheres));
    CUDA_CHECK(cudaFree(device_light));
    CUDA_CHECK(cudaFree(device_camera));
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
