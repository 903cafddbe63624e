/* The tree's build on the current GPU, from the scene's device arrays into its tree, with the
 * build's buffers: its launches (launch_build), its memory (allocate_build, free_build). They take
 * the scene and the buffers, not a frame, so that a frame over several GPUs can build one tree on
 * each (stage 43); build_tree.cuh hooks them into the frame. */

/* Five passes on the default stream; returns once they are launched. */
static void launch_build(const Scene *scene, const struct build_buffers *b, int n)
{
    const int threads = 256;
    sort_spheres(scene, b, n);
    if (n > 1) {
        CUDA_CHECK(cudaMemsetAsync(b->arrivals, 0, (size_t)(n - 1) * sizeof(unsigned int), 0));
        karras_kernel<<<(n - 1 + threads - 1) / threads, threads>>>(
            b->sorted_codes, n, (Node *)scene->nodes, b->node_parent, b->leaf_parent);
        CUDA_CHECK_LAUNCH("karras_kernel");
        fit_kernel<<<(n + threads - 1) / threads, threads>>>(*scene, (Node *)scene->nodes,
                                                            b->node_parent, b->leaf_parent,
                                                            b->arrivals, n);
        CUDA_CHECK_LAUNCH("fit_kernel");
    }
}

/* The tree: n - 1 inner nodes (at least one allocated), and the build's buffers. */
static void allocate_build(Scene *scene, struct build_buffers *b, int sphere_count)
{
    const size_t n = (size_t)sphere_count;
    scene->root = sphere_count > 1 ? 0 : ~0;
    CUDA_CHECK(cudaMalloc((void **)&scene->nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc((void **)&scene->order, n * sizeof(int)));
    allocate_sort(b, n);
    CUDA_CHECK(cudaMalloc((void **)&b->node_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->leaf_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->arrivals, n * sizeof(unsigned int)));
    allocate_sort_scratch(b, scene, sphere_count);
}

static void free_build(const Scene *scene, const struct build_buffers *b)
{
    CUDA_CHECK(cudaFree((void *)scene->nodes));
    CUDA_CHECK(cudaFree((void *)scene->order));
    free_sort(b);
    CUDA_CHECK(cudaFree(b->node_parent));
    CUDA_CHECK(cudaFree(b->leaf_parent));
    CUDA_CHECK(cudaFree(b->arrivals));
}
