/* The scene's spheres and materials to the GPU. */

/* The scene in; returns the bytes copied. The tree is made on the GPU. */
static size_t paths_upload_scene(const struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpy((void *)d->scene.spheres, world->spheres, sphere_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.materials, world->materials, material_bytes,
                          cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes;
}
