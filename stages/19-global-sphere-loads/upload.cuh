/* The scene's way to the GPU, every frame: the arrays host.cuh makes (the spheres, the light, the
 * camera and the per-sphere constants) and what the stage keeps on the host besides them. */

/* What the upload sends besides the scene's arrays, made on the host (the end of the host
 * allocation phase) and freed with them: each sphere's bounds. */
static void prepare_upload(struct frame_resources *frame, const Sphere *spheres, int sphere_count)
{
    CUDA_CHECK(cudaMallocHost((void **)&frame->bounds_on_host,
                              (size_t)sphere_count * sizeof(float4)));
    for (int s = 0; s < sphere_count; s++) {
        frame->bounds_on_host[s] = make_float4(spheres[s].center.x, spheres[s].center.y,
                                               spheres[s].center.z, 1.01f * spheres[s].radius);
    }
}

static void free_upload(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFreeHost(frame->bounds_on_host));
}

/* The bounds into global memory, the scene into constant memory (an interactive renderer would
 * change it between frames); returns the bytes copied. */
static size_t upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                           const float4 *geometry, const float4 *from_camera,
                           const struct frame_resources *frame, int sphere_count)
{
    CUDA_CHECK(cudaMemcpy(frame->bounds, frame->bounds_on_host,
                          (size_t)sphere_count * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres,
                                  (size_t)sphere_count * sizeof(Sphere)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_geometry, geometry,
                                  (size_t)sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_from_camera, from_camera,
                                  (size_t)sphere_count * sizeof(float4)));
    return (size_t)sphere_count * sizeof(Sphere) + sizeof(Light) + sizeof(Camera) +
           3 * (size_t)sphere_count * sizeof(float4);
}
