/* The clustered build on the current GPU: its launches (launch_build) and memory (allocate_build,
 * free_build), from the scene and the buffers, not a frame, so that a frame over several GPUs
 * builds a tree on each (stage 43); 23's build_tree.cuh hooks them into the frame. */

/* The sort and rounds of clustering on the default stream; returns once the last round is
 * launched (the count reads between rounds wait for the GPU; the last launch does not). */
static void launch_build(const Scene *scene, const struct build_buffers *b, int n)
{
    const int threads = 256;
    sort_spheres(scene, b, n);
    leaf_kernel<<<(n + threads - 1) / threads, threads>>>(
        scene->spheres, scene->geometry, scene->from_camera, scene->order,
        (float4 *)scene->leaf_geometry, (float4 *)scene->leaf_from_camera, b->clusters[0], n);
    CUDA_CHECK_LAUNCH("leaf_kernel");
    /* Rounds until one cluster is left: over the GPU while many are, sized by upper, the count
     * the host last read (it only falls; the kernels read the true one); the last in one block. */
    CUDA_CHECK(cudaMemsetAsync(b->merges, 0, sizeof(unsigned int), 0));
    CUDA_CHECK(cudaMemcpyAsync(b->count, &n, sizeof n, cudaMemcpyHostToDevice, 0));
    Cluster *clusters = b->clusters[0], *survivors = b->clusters[1];
    int upper = n;
    while (upper > 1) {
        if (upper <= FINISH_CLUSTERS) {
            finish_kernel<<<1, FINISH_THREADS>>>(clusters, survivors, b->nearest, b->count,
                                                 (Node *)scene->nodes, b->merges, n);
            CUDA_CHECK_LAUNCH("finish_kernel");
            break;
        }
        const int blocks = (upper + threads - 1) / threads;
        for (int round = 0; round < ROUNDS_PER_COUNT; round++) {
            nearest_kernel<<<blocks, threads>>>(clusters, b->count, b->nearest);
            CUDA_CHECK_LAUNCH("nearest_kernel");
            merge_kernel<<<blocks, threads>>>(clusters, b->nearest, b->count,
                                              (Node *)scene->nodes, b->merges, b->keep,
                                              upper, n);
            CUDA_CHECK_LAUNCH("merge_kernel");
            size_t select_bytes = b->select_scratch_bytes;
            CUDA_CHECK(cub::DeviceSelect::Flagged(b->select_scratch, select_bytes, clusters,
                                                  b->keep, survivors, b->count, upper));
            CUDA_CHECK_LAUNCH("cub::DeviceSelect::Flagged");
            Cluster *swap = clusters;
            clusters = survivors;
            survivors = swap;
        }
        CUDA_CHECK(cudaMemcpy(&upper, b->count, sizeof upper, cudaMemcpyDeviceToHost));
    }
}

/* The tree: n - 1 inner nodes (at least one allocated), and the build's buffers. */
static void allocate_build(Scene *scene, struct build_buffers *b, int sphere_count)
{
    const size_t n = (size_t)sphere_count;
    scene->root = sphere_count > 1 ? 0 : ~0;
    scene->sphere_count = sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&scene->nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc((void **)&scene->order, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&scene->leaf_geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&scene->leaf_from_camera, n * sizeof(float4)));
    allocate_sort(b, n);
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[0], n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[1], n * sizeof(Cluster)));
    /* CUB's compaction loads whole tiles, slots past the count too (it keeps none): zeroed once,
     * so that no load reads memory never written (compute-sanitizer's initcheck), at no cost. */
    CUDA_CHECK(cudaMemset(b->clusters[0], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMemset(b->clusters[1], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->nearest, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->keep, n));
    CUDA_CHECK(cudaMalloc((void **)&b->count, sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->merges, sizeof(unsigned int)));
    allocate_sort_scratch(b, scene, sphere_count);
    b->select_scratch = NULL;
    CUDA_CHECK(cub::DeviceSelect::Flagged(NULL, b->select_scratch_bytes, b->clusters[0], b->keep,
                                          b->clusters[1], b->count, sphere_count));
    CUDA_CHECK(cudaMalloc(&b->select_scratch, b->select_scratch_bytes));
}

static void free_build(const Scene *scene, const struct build_buffers *b)
{
    CUDA_CHECK(cudaFree((void *)scene->nodes));
    CUDA_CHECK(cudaFree((void *)scene->order));
    CUDA_CHECK(cudaFree((void *)scene->leaf_geometry));
    CUDA_CHECK(cudaFree((void *)scene->leaf_from_camera));
    free_sort(b);
    CUDA_CHECK(cudaFree(b->clusters[0]));
    CUDA_CHECK(cudaFree(b->clusters[1]));
    CUDA_CHECK(cudaFree(b->nearest));
    CUDA_CHECK(cudaFree(b->keep));
    CUDA_CHECK(cudaFree(b->count));
    CUDA_CHECK(cudaFree(b->merges));
    CUDA_CHECK(cudaFree(b->select_scratch));
}
