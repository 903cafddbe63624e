/* The host half of one rank, stage_render: stage 40's host half (the 8-bit frame buffer in 2 MiB
 * pages, registered with CUDA; the scene in pinned memory; the phases of the first frame; the
 * steady-state frames of --frames N, each reusing every allocation; the frees, every phase timed)
 * for the one GPU of this process and the rows of its rank, and the gather: every rank's rows to
 * rank 0's GPU, which alone has a host frame, copies it home and writes the image. The
 * communicator is made before the first phase, as the context is. The phases are rank 0's, on its
 * CPU clock; kernel_events is the slowest rank's span, reduced over the world. The parts it asks
 * of a stage, defined before this one:
 *   frame.cuh       struct frame_resources (one struct gpu_slice: this rank's), prepare_frame(),
 *                   allocate_frame() and free_frame()
 *   ranks.cuh       split_rows_of_rank() (which rows this rank renders), struct world,
 *                   join_world() and make_communicator(), launch_gather() and
 *                   wait_for_gather(), reduce_spans() and free_world()
 *   bands.cuh       launch_bands() (copies home on rank 0 only) and wait_for_copies()
 *   upload.cuh      upload_scene() to this rank's GPU, wait_for_uploads(); prepare_upload() and
 *                   free_upload()
 *   build_tree.cuh  build_tree_on_host(), build_tree(), steady_report(), as in stage 13 */
#include "runtime/host_pages.h"

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    /* This rank: which of how many (the launcher's environment, as main() read it), its GPU
     * (gpu_open made its context: the current device), its rows. The communicator is made here,
     * before the first phase, as the context was, and timed apart: the metric communicator_init. */
    struct world world;
    join_world(&world, job);
    const int root = world.ranks.rank == 0; /* gathers the frame, copies it home, writes it */
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    struct frame_resources frame;
    split_rows_of_rank(&frame, device, world.ranks.rank, world.ranks.size, height);
    double start = timer_now_us();
    make_communicator(&world);
    report_metric(report, "communicator_init", timer_now_us() - start, "us");
    report_metric(report, "ranks", world.ranks.size, "ranks");

    /* The host frame: rank 0's alone, the only one the frame comes home to. */
    size_t framebuffer_mapped_bytes = 0;
    unsigned char *framebuffer = NULL;
    start = timer_now_us();
    if (root) {
        framebuffer = (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
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
        CUDA_CHECK(
            cudaHostRegister(framebuffer, framebuffer_mapped_bytes, cudaHostRegisterPortable));
        report_part_since(report, PHASE_HOST_ALLOCATION, "host_register", start);
        start = timer_now_us();
    }
    frame.framebuffer = framebuffer; /* NULL on the other ranks: their bands are not copied home */
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
    launch_gather(&frame, &world, width, height);
    /* The kernel phase: until this rank's last band is rendered (on rank 0, copies already under
     * way inside it). kernel_events: each rank's span on its own events, from its bands_start to
     * its last band rendered, and the longest of them over the world (reduce_spans); in a world of
     * one, stage 21's. The shortest is the metric kernel_events_fastest. */
    const struct gpu_slice *gpu = &frame.gpus[0];
    float kernels_ms = 0;
    for (int b = 0; b < gpu->bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(gpu->band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, gpu->bands_start, gpu->band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);

    /* The copy phase, the frame's way home: the gather (part gather: until every other rank's
     * rows are in rank 0's device frame, which waits for a rank whose kernels end later too; on
     * rank 0's GPU's events, from its own last band rendered, the metric gather_events), then what
     * is left of rank 0's copies home (part copy_home: its own bands' and, after them, the other
     * ranks' rows). */
    start = timer_now_us();
    const float gather_ms = wait_for_gather(&world);
    start = report_part_since(report, PHASE_DEVICE_TO_HOST, "gather", start);
    wait_for_copies(&frame);
    report_part_since(report, PHASE_DEVICE_TO_HOST, "copy_home", start);
    float spans[2] = {kernels_ms, kernels_ms};
    reduce_spans(&world, spans);
    report->kernel_event_us = spans[0] * 1000.0;
    report_metric(report, "kernel_events_fastest", spans[1] * 1000.0, "us");
    report_metric(report, "gather_events", gather_ms * 1000.0, "us");
    report->bytes_to_host += root ? framebuffer_bytes : 0;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* Steady state: frames 2..N reuse everything above; each is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        float gathers_ms = 0;
        struct report *steady = steady_report(&frame, report);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            build_tree_on_host(&frame, scene, steady);
            upload_scene(spheres, light, camera, geometry, from_camera, &frame,
                         scene->sphere_count);
            build_tree(&frame, steady);
            launch_bands(&frame, threads, scene->sphere_count, width, height);
            launch_gather(&frame, &world, width, height);
            gathers_ms += wait_for_gather(&world);
            wait_for_copies(&frame);
            double frame_us = timer_now_us() - frame_start;
            frames_us += frame_us;
            fastest_us = f == 1 || frame_us < fastest_us ? frame_us : fastest_us;
        }
        report_metric(report, "frames", job->frames, "frames");
        report_metric(report, "steady_frame", frames_us / (job->frames - 1), "us");
        report_metric(report, "steady_frame_min", fastest_us, "us");
        report_metric(report, "steady_gather_events", gathers_ms * 1000.0 / (job->frames - 1), "us");
    }

    start = timer_now_us();
    free_frame(&frame);
    free_world(&world);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    if (root)
        render_job_frame_ready_rgb8(job, framebuffer);

    start = timer_now_us();
    if (root) {
        CUDA_CHECK(cudaHostUnregister(framebuffer));
        report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
        start = timer_now_us();
        host_pages_unmap(framebuffer, framebuffer_mapped_bytes);
        report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
        start = timer_now_us();
    }
    CUDA_CHECK(cudaFreeHost(spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(geometry));
    CUDA_CHECK(cudaFreeHost(from_camera));
    free_upload(&frame);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
