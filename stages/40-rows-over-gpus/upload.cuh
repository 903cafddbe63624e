/* The scene's way to every GPU, every frame: each GPU its own copy of the arrays host.cuh makes
 * (the spheres, the light, the camera and the per-sphere constants) and of the bounds the stage
 * keeps besides them, into its global and constant memory (a __constant__ array is one a device).
 * The copies are asynchronous, in each GPU's legacy default stream: the host sends every GPU's
 * without waiting for one GPU's to end, and each GPU's setup kernel, launched into the same stream
 * after them, runs once they are in. The host memory they read is pinned for every GPU. */

/* What the upload sends besides the scene's arrays, made on the host (the end of the host
 * allocation phase) and freed with them: each sphere's bounds. */
static void prepare_upload(struct frame_resources *frame, const Sphere *spheres, int sphere_count)
{
    CUDA_CHECK(cudaHostAlloc((void **)&frame->bounds_on_host,
                             (size_t)sphere_count * sizeof(float4), cudaHostAllocPortable));
    for (int s = 0; s < sphere_count; s++) {
        frame->bounds_on_host[s] = make_float4(spheres[s].center.x, spheres[s].center.y,
                                               spheres[s].center.z, 1.01f * spheres[s].radius);
    }
}

static void free_upload(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFreeHost(frame->bounds_on_host));
}

/* The bounds into each GPU's global memory, the scene into its constant memory (an interactive
 * renderer would change it between frames), queued on every GPU; returns the bytes copied, all
 * GPUs' together. */
static size_t upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                           const float4 *geometry, const float4 *from_camera,
                           const struct frame_resources *frame, int sphere_count)
{
    for (int g = 0; g < frame->gpu_count; g++) {
        const struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        CUDA_CHECK(cudaMemcpyAsync(gpu->bounds, frame->bounds_on_host,
                                   (size_t)sphere_count * sizeof(float4), cudaMemcpyHostToDevice,
                                   0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_spheres, spheres,
                                           (size_t)sphere_count * sizeof(Sphere), 0,
                                           cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_light, light, sizeof(Light), 0,
                                           cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_camera, camera, sizeof(Camera), 0,
                                           cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_geometry, geometry,
                                           (size_t)sphere_count * sizeof(float4), 0,
                                           cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_from_camera, from_camera,
                                           (size_t)sphere_count * sizeof(float4), 0,
                                           cudaMemcpyHostToDevice, 0));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
    return frame->gpu_count * ((size_t)sphere_count * sizeof(Sphere) + sizeof(Light) +
                               sizeof(Camera) + 3 * (size_t)sphere_count * sizeof(float4));
}

/* Until every GPU has its copy of the scene: the first frame's upload phase ends here; the
 * steady frames do not wait (their setup kernels do, in each GPU's stream). */
static void wait_for_uploads(const struct frame_resources *frame)
{
    for (int g = 0; g < frame->gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(frame->gpus[g].device));
        CUDA_CHECK(cudaStreamSynchronize(0));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}
