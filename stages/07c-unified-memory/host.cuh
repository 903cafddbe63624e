/* The host half, stage_render: the buffers, the scene's way to the GPU, the launch, the frame's
 * way back and the frees; every phase timed. */

/* Where the host's reads of the frame go, so that the compiler keeps them. */
static volatile unsigned page_sink;

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
    CUDA_CHECK(cudaMallocManaged((void **)&framebuffer, framebuffer_bytes));
    Sphere *spheres;
    CUDA_CHECK(cudaMallocManaged((void **)&spheres, spheres_bytes));
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaMallocManaged((void **)&light, sizeof(Light)));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaMallocManaged((void **)&camera, sizeof(Camera)));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us(); /* nothing: the managed allocations serve the device too */
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us(); /* nothing: the kernel's first touches migrate the scene's pages */
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    size_t shared_bytes = spheres_bytes; /* the block's copy of the spheres */
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads, shared_bytes>>>(framebuffer, spheres, scene->sphere_count,
                                                     light, camera, width, height);
    CUDA_CHECK_LAUNCH("render_kernel");
    kernel_timer_stop(&timer, report); /* waits for the kernel: a launch returns at once */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y,
                         shared_bytes);

    /* The host reads one byte of every 4 KiB page of the frame, as its consumer would begin:
     * each first read faults, and the driver migrates the pages back from the GPU. */
    start = timer_now_us();
    const unsigned char *frame_bytes = (const unsigned char *)framebuffer;
    unsigned page_sum = 0;
    for (size_t offset = 0; offset < framebuffer_bytes; offset += 4096) {
        page_sum += frame_bytes[offset];
    }
    page_sink = page_sum;
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);

    start = timer_now_us(); /* nothing: the managed buffers are freed once, below */
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready(job, (const float *)framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaFree(framebuffer));
    CUDA_CHECK(cudaFree(spheres));
    CUDA_CHECK(cudaFree(light));
    CUDA_CHECK(cudaFree(camera));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
