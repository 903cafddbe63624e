/* The scene's spheres and materials to the GPU. */

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    size_t light_bytes = (size_t)world->light_count * sizeof(struct pt_light);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    if (light_bytes > 0)
        CUDA_CHECK(cudaMemcpy(d->lights, world->lights, light_bytes, cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes + light_bytes;
}
