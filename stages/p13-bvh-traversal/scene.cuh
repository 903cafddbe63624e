/* The scene's spheres and materials to the GPU. */

/* The scene and its hierarchy in; returns the bytes copied. */
static size_t paths_upload_scene(const struct device_paths *d, const struct pt_world *world,
                                 const struct bvh *bvh)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    size_t node_bytes = (size_t)bvh->node_count * sizeof(struct spec_bvh_node);
    size_t order_bytes = (size_t)world->sphere_count * sizeof(int);
    CUDA_CHECK(cudaMemcpy((void *)d->scene.spheres, world->spheres, sphere_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.materials, world->materials, material_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.nodes, bvh->nodes, node_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.order, bvh->order, order_bytes,
                          cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes + node_bytes + order_bytes;
}
