/* The host half of every stage from 13 on, stage_render: the host buffers (the 8-bit frame buffer
 * in 2 MiB pages, registered with CUDA; the scene in pinned memory), the scene's upload, the
 * kernel and copy phases of the first frame, the steady-state frames of --frames N (each reuses
 * every allocation: it uploads the scene, launches the bands and waits for the last copy), and
 * the frees, every phase timed. What a stage changes, it defines in its own parts before this one:
 *   frame.cuh       struct frame_resources (what a frame needs that outlives it), prepare_frame()
 *                   (what the frame takes from the scene, on the host), allocate_frame() and
 *                   free_frame() (the device allocation and device free phases)
 *   bands.cuh       launch_bands() and wait_for_copies(), the launches and copies of one frame;
 *                   start_stream(), mark_frame_on_host() and finish_stream(): the image file
 *                   streamed as the bands arrive (stage 21a), else handed over at the end
 *   upload.cuh      upload_scene(), the scene's way to the GPU every frame; prepare_upload() and
 *                   free_upload(), what it sends that the host keeps besides the scene's arrays
 *   build_tree.cuh  build_tree_on_host() and build_tree(), what a frame builds before its bands,
 *                   on the host before the upload or on the GPU after it (from stage 22 on, a
 *                   tree), and steady_report(), the report of frames 2..N's builds (from stage 22
 *                   on in frame.cuh, whose frame keeps it) */
#include "runtime/host_pages.h"

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
    /* The per-sphere constants, with the kernel's arithmetic (rt_math.cuh's helpers, which round
     * on the host as on the GPU: without fused multiply-add, and an fmaf correctly rounded). */
    float4 *geometry, *from_camera;
    CUDA_CHECK(cudaMallocHost((void **)&geometry, (size_t)scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&from_camera, (size_t)scene->sphere_count * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y, spheres[s].center.z,
                                  radius_squared);
        from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
    }
    prepare_upload(&frame, spheres, scene->sphere_count);
    prepare_frame(&frame, scene, light, camera);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start_stream(&frame, job);
    start = timer_now_us();
    allocate_frame(&frame, job, framebuffer_bytes);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    build_tree_on_host(&frame, scene, report);
    start = timer_now_us();
    report->bytes_to_device += upload_scene(spheres, light, camera, geometry, from_camera, &frame,
                                            scene->sphere_count);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    build_tree(&frame, report);

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
    mark_frame_on_host(&frame);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);
    const bool streamed = finish_stream(&frame, job);

    /* Steady state: frames 2..N reuse everything above; each is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        struct report *steady = steady_report(&frame, report);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            build_tree_on_host(&frame, scene, steady);
            upload_scene(spheres, light, camera, geometry, from_camera, &frame,
                         scene->sphere_count);
            build_tree(&frame, steady);
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
    free_upload(&frame);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
