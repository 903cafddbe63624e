/* The host half over several GPUs, stage_render: stage 13's host half (the 8-bit frame buffer in
 * 2 MiB pages, registered with CUDA; the scene in pinned memory; the phases of the first frame;
 * the steady-state frames of --frames N, each reusing every allocation; the frees, every phase
 * timed), with each device step taken once a GPU: the GPUs' contexts, made before the first
 * phase; each GPU's allocations; each GPU's upload of the scene; each GPU's setup and bands; each
 * GPU's copies into its own rows of the one host frame; each GPU's frees. Host memory the GPUs
 * read or write is pinned for all of them (portable). The parts it asks of a stage, defined
 * before this one:
 *   frame.cuh       struct frame_resources, the frame split into a struct gpu_slice a GPU;
 *                   prepare_frame(), allocate_frame() and free_frame() (every GPU's
 *                   allocations and frees)
 *   rows.cuh        split_rows(): which GPU renders which rows in the first frame
 *   bands.cuh       launch_bands() and wait_for_copies(), over every GPU
 *   upload.cuh      upload_scene() to every GPU, wait_for_uploads(); prepare_upload() and
 *                   free_upload()
 *   split.cuh       balance_rows(): the split of the rows before each frame after the first
 *   split_report.cuh  report_split(): the split and the GPUs' spans of the last frame
 *   build_tree.cuh  build_tree_on_host(), build_tree(), steady_report(), as in stage 13 (a
 *                   stage whose tree is built on the GPU builds one on every GPU; its
 *                   steady_report() may sit in its frame.cuh, as stage 22's does) */
#include "runtime/host_pages.h"

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    /* The GPUs: --device and the --gpus - 1 after it (stage_main.c checked they exist), or every
     * GPU from --device on; no more than the rows. gpu_open made the first one's context and
     * timed it; the others' are made here, before the first phase, and timed with it. */
    struct frame_resources frame;
    int device_count;
    CUDA_CHECK(cudaGetDeviceCount(&device_count));
    int gpu_count = job->gpus ? job->gpus : device_count - job->device;
    gpu_count = gpu_count < height ? gpu_count : height;
    gpu_count = gpu_count < MAX_GPUS ? gpu_count : MAX_GPUS;
    split_rows(&frame, job->device, gpu_count, height);
    for (int g = 1; g < gpu_count; g++) {
        double context_start = timer_now_us();
        CUDA_CHECK(cudaSetDevice(frame.gpus[g].device));
        CUDA_CHECK(cudaFree(0)); /* the first runtime call that needs a context creates it */
        report->context_creation_us += timer_now_us() - context_start;
    }
    CUDA_CHECK(cudaSetDevice(job->device));
    report_metric(report, "gpus", gpu_count, "gpus");

    double start = timer_now_us();
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
    CUDA_CHECK(cudaHostRegister(framebuffer, framebuffer_mapped_bytes, cudaHostRegisterPortable));
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_register", start);
    start = timer_now_us();
    Sphere *spheres;
    CUDA_CHECK(cudaHostAlloc((void **)&spheres, spheres_bytes, cudaHostAllocPortable));
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaHostAlloc((void **)&light, sizeof(Light), cudaHostAllocPortable));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaHostAlloc((void **)&camera, sizeof(Camera), cudaHostAllocPortable));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    /* The per-sphere constants, with the kernel's arithmetic (rt_math.cuh's helpers, which round
     * on the host as on the GPU: without fused multiply-add, and an fmaf correctly rounded). */
    float4 *geometry, *from_camera;
    CUDA_CHECK(cudaHostAlloc((void **)&geometry, (size_t)scene->sphere_count * sizeof(float4),
                             cudaHostAllocPortable));
    CUDA_CHECK(cudaHostAlloc((void **)&from_camera, (size_t)scene->sphere_count * sizeof(float4),
                             cudaHostAllocPortable));
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

    start = timer_now_us();
    allocate_frame(&frame, job, framebuffer_bytes);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    build_tree_on_host(&frame, scene, report);
    start = timer_now_us();
    report->bytes_to_device += upload_scene(spheres, light, camera, geometry, from_camera, &frame,
                                            scene->sphere_count);
    wait_for_uploads(&frame);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    build_tree(&frame, report);

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    launch_bands(&frame, threads, scene->sphere_count, width, height);
    /* The kernel phase: until the last band of every GPU is rendered (copies already under way
     * inside it). kernel_events: each GPU's span on its own events, from its bands_start to its
     * last band rendered, and the longest of them (CUDA compares events of one device only); with
     * one GPU, stage 21's. The shortest is the metric kernel_events_fastest. */
    float kernels_ms = 0, fastest_ms = 0;
    for (int g = 0; g < frame.gpu_count; g++) {
        const struct gpu_slice *gpu = &frame.gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        float gpu_ms = 0;
        for (int b = 0; b < gpu->bands; b++) {
            CUDA_CHECK(cudaEventSynchronize(gpu->band_rendered[b]));
            float band_ms;
            CUDA_CHECK(cudaEventElapsedTime(&band_ms, gpu->bands_start, gpu->band_rendered[b]));
            gpu_ms = band_ms > gpu_ms ? band_ms : gpu_ms;
        }
        kernels_ms = gpu_ms > kernels_ms ? gpu_ms : kernels_ms;
        fastest_ms = g == 0 || gpu_ms < fastest_ms ? gpu_ms : fastest_ms;
    }
    CUDA_CHECK(cudaSetDevice(job->device));
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;
    report_metric(report, "kernel_events_fastest", fastest_ms * 1000.0, "us");

    /* The copy phase: what is left of every GPU's copies once every band is rendered. */
    start = timer_now_us();
    wait_for_copies(&frame);
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it: the first GPU's. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* Steady state: frames 2..N reuse everything above; each is timed whole on the CPU clock, and
     * begins with the split of its rows over the GPUs (balance_rows, split.cuh). */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        struct report *steady = steady_report(&frame, report);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            balance_rows(&frame);
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
    report_split(&frame, report);

    start = timer_now_us();
    free_frame(&frame);
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
    CUDA_CHECK(cudaFreeHost(geometry));
    CUDA_CHECK(cudaFreeHost(from_camera));
    free_upload(&frame);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
