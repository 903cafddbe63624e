/* The scene's way to the GPU, every frame: the arrays host.cuh makes (the spheres, the light, the
 * camera and the per-sphere constants) and what the stage keeps on the host besides them. */

/* What the upload sends besides the scene's arrays: the tree, where the host builds it, every
 * frame (build_tree_on_host, build_tree.cuh); nothing made at the end of the host allocation
 * phase, and the tree freed with the scene's arrays. */
static void prepare_upload(struct frame_resources *, const Sphere *, int /* sphere_count */) {}
static void free_upload(struct frame_resources *frame) { free_tree_on_host(frame); }

/* The scene into global memory, and the tree where the host built it (an interactive renderer
 * would change them between frames); returns the bytes copied. */
static size_t upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                           const float4 *geometry, const float4 *from_camera,
                           const struct frame_resources *frame, int sphere_count)
{
    const size_t n = (size_t)sphere_count;
    CUDA_CHECK(cudaMemcpy((void *)frame->scene.spheres, spheres, n * sizeof(Sphere),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)frame->scene.geometry, geometry, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)frame->scene.from_camera, from_camera, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    const size_t tree_bytes = upload_tree(frame);
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    return n * (sizeof(Sphere) + 2 * sizeof(float4)) + tree_bytes + sizeof(Light) +
           sizeof(Camera);
}
