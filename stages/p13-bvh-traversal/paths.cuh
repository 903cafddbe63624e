/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernels work on, on the GPU: the sums, the counter of paths handed out, the 8-bit
 * image made from the sums, and the scene with its hierarchy. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
    unsigned char *rgb; /* 3 per pixel */
    struct scene_on_gpu scene;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count, int node_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->rgb, (size_t)count * 3));
    size_t n = (size_t)sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&d->scene.spheres, n * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.materials, n * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.nodes,
                          (size_t)node_count * sizeof(struct spec_bvh_node)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.order, n * sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
    CUDA_CHECK(cudaFree(d->rgb));
    CUDA_CHECK(cudaFree((void *)d->scene.spheres));
    CUDA_CHECK(cudaFree((void *)d->scene.materials));
    CUDA_CHECK(cudaFree((void *)d->scene.nodes));
    CUDA_CHECK(cudaFree((void *)d->scene.order));
}
