/* The scene's spheres and materials to the GPU. */

/* The scene in, and the heap's failure flag cleared; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpy(d->spheres, world->spheres, sphere_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->materials, world->materials, material_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d->heap_exhausted, 0, sizeof(int)));
    return sphere_bytes + material_bytes;
}
