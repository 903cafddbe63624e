/* The scene's way to the GPU, every frame: the arrays host.cuh makes (the spheres, the light, the
 * camera and the per-sphere constants) and what the stage keeps on the host besides them. */

/* What the upload sends besides the scene's arrays, made on the host (the end of the host
 * allocation phase) and freed with them: nothing yet. */
static void prepare_upload(struct frame_resources *, const Sphere *, int /* sphere_count */) {}
static void free_upload(struct frame_resources *) {}

/* The scene into constant memory (an interactive renderer would change it between frames);
 * returns the bytes copied. */
static size_t upload_scene(const Sphere *spheres, const Light *light, const Camera *camera,
                           const float4 *geometry, const float4 *from_camera,
                           const struct frame_resources *, int sphere_count)
{
    CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres,
                                  (size_t)sphere_count * sizeof(Sphere)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_geometry, geometry,
                                  (size_t)sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_from_camera, from_camera,
                                  (size_t)sphere_count * sizeof(float4)));
    return (size_t)sphere_count * sizeof(Sphere) + sizeof(Light) + sizeof(Camera) +
           2 * (size_t)sphere_count * sizeof(float4);
}
