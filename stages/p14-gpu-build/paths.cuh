/* The device memory the kernels work on: allocated and freed by the host. */

/* What the build works with besides the tree: the centres' box, the codes and their sorted
 * copy, the sort's indices and scratch, each node's and leaf's parent, the fit's counters. */
struct build_buffers {
    unsigned *bounds;                         /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                             /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    int *node_parent, *leaf_parent; /* n - 1 and n */
    unsigned *arrivals;             /* n - 1 */
};

/* What the kernels work on, on the GPU: the sums, the counter of paths handed out, the 8-bit
 * image made from the sums, the scene with its tree, and what the build needs. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
    unsigned char *rgb; /* 3 per pixel */
    struct scene_on_gpu scene;
    struct build_buffers build;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->rgb, (size_t)count * 3));
    size_t n = (size_t)sphere_count;
    size_t inner = n > 1 ? n - 1 : 1;
    CUDA_CHECK(cudaMalloc((void **)&d->scene.spheres, n * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.materials, n * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.nodes, inner * sizeof(struct tree_node)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.order, n * sizeof(int)));
    d->scene.root = sphere_count > 1 ? 0 : ~0;
    struct build_buffers *b = &d->build;
    CUDA_CHECK(cudaMalloc((void **)&b->bounds, 6 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&b->codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->sorted_codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->indices, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->node_parent, inner * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->leaf_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->arrivals, inner * sizeof(unsigned)));
    b->sort_scratch = NULL;
    b->sort_scratch_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b->sort_scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)d->scene.order,
                                               sphere_count, 0, 63));
    CUDA_CHECK(cudaMalloc(&b->sort_scratch, b->sort_scratch_bytes));
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
    struct build_buffers *b = &d->build;
    CUDA_CHECK(cudaFree(b->bounds));
    CUDA_CHECK(cudaFree(b->codes));
    CUDA_CHECK(cudaFree(b->sorted_codes));
    CUDA_CHECK(cudaFree(b->indices));
    CUDA_CHECK(cudaFree(b->node_parent));
    CUDA_CHECK(cudaFree(b->leaf_parent));
    CUDA_CHECK(cudaFree(b->arrivals));
    CUDA_CHECK(cudaFree(b->sort_scratch));
}
