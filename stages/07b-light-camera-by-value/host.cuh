/* The host half, stage_render: the buffers, the scene's way to the GPU, the launch, the frame's
 * way back and the frees; every phase timed. */

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * sizeof(float3);
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    float3 *framebuffer;
    CUDA_CHECK(cudaMallocHost((void **)&framebuffer, framebuffer_bytes));
    Sphere *spheres;
    CUDA_CHECK(cudaMallocHost((void **)&spheres, spheres_bytes));
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light light;
    light.position = float3_from(scene->light_position);
    light.color = float3_from(scene->light_colour);
    light.ambient = scene->ambient;
    light.diffuse = scene->diffuse;
    light.specular = scene->specular;
    Camera camera;
    camera.origin = float3_from(scene->camera);
    camera.background = float3_from(scene->background);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    float3 *device_framebuffer;
    Sphere *device_spheres;
    CUDA_CHECK(cudaMalloc((void **)&device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_spheres, spheres_bytes));
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(device_spheres, spheres, spheres_bytes, cudaMemcpyHostToDevice));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes; /* the light and camera go with the launch */

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    size_t shared_bytes = spheres_bytes; /* the block's copy of the spheres */
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads, shared_bytes>>>(device_framebuffer, device_spheres,
                                                     scene->sphere_count, light, camera,
                                                     width, height);
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
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready(job, (const float *)framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaFreeHost(framebuffer));
    CUDA_CHECK(cudaFreeHost(spheres));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
