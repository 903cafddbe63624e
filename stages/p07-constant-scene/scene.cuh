/* The scene's spheres and materials to the GPU. */

/* The scene in, to constant memory (d holds none of it); returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    return sphere_bytes + material_bytes;
}
