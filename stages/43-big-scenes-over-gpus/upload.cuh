/* The scene's way to every GPU, every frame: each GPU its own copy of the arrays host.cuh makes
 * (the spheres and the per-sphere constants) into its global memory, and of the light and the
 * camera into its constant memory (a __constant__ variable is one a device). The copies are
 * asynchronous, in each GPU's legacy default stream: the host sends every GPU's without waiting
 * for one GPU's to end, and each GPU's build, launched into the same stream after them, runs once
 * they are in. The host memory they read is pinned for every GPU (host.cuh). */

/* Nothing is sent besides the scene's arrays: the tree is built on each GPU (build_tree.cuh). */
static void prepare_upload(struct frame_resources *, const Sphere *, int /* sphere_count */) {}
static void free_upload(struct frame_resources *) {}

/* The scene into each GPU's global and constant memory (an interactive renderer would change it
 * between frames), queued on every GPU; returns the bytes copied, all GPUs' together. */
static size_t upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                           const float4 *geometry, const float4 *from_camera,
                           const struct frame_resources *frame, int sphere_count)
{
    const size_t n = (size_t)sphere_count;
    for (int g = 0; g < frame->gpu_count; g++) {
        const struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        CUDA_CHECK(cudaMemcpyAsync((void *)gpu->scene.spheres, spheres, n * sizeof(Sphere),
                                   cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyAsync((void *)gpu->scene.geometry, geometry, n * sizeof(float4),
                                   cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyAsync((void *)gpu->scene.from_camera, from_camera,
                                   n * sizeof(float4), cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_light, light, sizeof(Light), 0,
                                           cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaMemcpyToSymbolAsync(constant_camera, camera, sizeof(Camera), 0,
                                           cudaMemcpyHostToDevice, 0));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
    return frame->gpu_count *
           (n * (sizeof(Sphere) + 2 * sizeof(float4)) + sizeof(Light) + sizeof(Camera));
}

/* Until every GPU has its copy of the scene: the first frame's upload phase ends here; the
 * steady frames do not wait (their builds do, in each GPU's stream). */
static void wait_for_uploads(const struct frame_resources *frame)
{
    for (int g = 0; g < frame->gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(frame->gpus[g].device));
        CUDA_CHECK(cudaStreamSynchronize(0));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}
