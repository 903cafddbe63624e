/* The host half, stage_render: the buffers, the scene's way to the GPU, the launch, the frame's
 * way back and the frees; every phase timed. */

/* What takes the frame once it is on the host: the job's image file (common/raytrace). A stage
 * whose lesson is the file's writing defines its own before this part (side stage 02a). */
#ifndef FRAME_READY
#define FRAME_READY render_job_frame_ready
#endif

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * sizeof(Vec3f);
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    Vec3f *framebuffer = (Vec3f *)host_alloc_or_exit(framebuffer_bytes, "the frame buffer");
    for (size_t p = 0; p < pixels; p++) {
        framebuffer[p] = vec3f_make(0.0f, 0.0f, 0.0f);
    }
    Sphere *spheres = (Sphere *)host_alloc_or_exit(spheres_bytes, "the spheres");
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = vec3f_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = vec3f_from(scene->spheres[s].colour);
    }
    Light *light = (Light *)host_alloc_or_exit(sizeof(Light), "the light");
    light->position = vec3f_from(scene->light_position);
    light->color = vec3f_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera = (Camera *)host_alloc_or_exit(sizeof(Camera), "the camera");
    camera->origin = vec3f_from(scene->camera);
    camera->background = vec3f_from(scene->background);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    Vec3f *device_framebuffer;
    Sphere *device_spheres;
    Light *device_light;
    Camera *device_camera;
    CUDA_CHECK(cudaMalloc((void **)&device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_spheres, spheres_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_light, sizeof(Light)));
    CUDA_CHECK(cudaMalloc((void **)&device_camera, sizeof(Camera)));
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(device_framebuffer, framebuffer, framebuffer_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_spheres, spheres, spheres_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_light, light, sizeof(Light), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_camera, camera, sizeof(Camera), cudaMemcpyHostToDevice));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += framebuffer_bytes + spheres_bytes + sizeof(Light) + sizeof(Camera);

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads>>>(device_framebuffer, device_spheres, scene->sphere_count,
                                       device_light, device_camera, width, height);
    CUDA_CHECK_LAUNCH("render_kernel");
    kernel_timer_stop(&timer, report); /* waits for the kernel: a launch returns at once */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

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

    FRAME_READY(job, (const float *)framebuffer);

    start = timer_now_us();
    free(framebuffer);
    free(spheres);
    free(light);
    free(camera);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
