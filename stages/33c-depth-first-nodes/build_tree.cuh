/* The tree's build and its memory on the GPU: the hooks build_tree, allocate_tree, free_tree. */

/* The hierarchy, built on the GPU every frame (an interactive renderer's spheres move): the sort,
 * the rounds of clustering and the depth-first layout on the default stream, which the bands'
 * streams wait for; timed as the build phase, up to the moment the GPU has finished it. */
static void build_tree(const struct frame_resources *frame, struct report *report)
{
    double start = timer_now_us();
    const int n = frame->sphere_count, threads = 256;
    const struct build_buffers *b = &frame->build;
    sort_spheres(&frame->scene, b, n);
    leaf_kernel<<<(n + threads - 1) / threads, threads>>>(
        frame->scene.spheres, frame->scene.geometry, frame->scene.from_camera, frame->scene.order,
        (float4 *)frame->scene.leaf_geometry, (float4 *)frame->scene.leaf_from_camera,
        b->clusters[0], n);
    CUDA_CHECK_LAUNCH("leaf_kernel");
    /* Rounds of merging until one cluster is left: over the whole GPU while many are left, the
     * launches sized by upper, the count the host last read (the count only falls; the kernels
     * read the true count on the GPU); the last rounds in one block. */
    CUDA_CHECK(cudaMemsetAsync(b->merges, 0, sizeof(unsigned int), 0));
    CUDA_CHECK(cudaMemcpyAsync(b->count, &n, sizeof n, cudaMemcpyHostToDevice, 0));
    Cluster *clusters = b->clusters[0], *survivors = b->clusters[1];
    int upper = n;
    while (upper > 1) {
        if (upper <= FINISH_CLUSTERS) {
            finish_kernel<<<1, FINISH_THREADS>>>(clusters, survivors, b->nearest, b->count,
                                                 (Node *)frame->scene.nodes, b->merges, n);
            CUDA_CHECK_LAUNCH("finish_kernel");
            break;
        }
        const int blocks = (upper + threads - 1) / threads;
        for (int round = 0; round < ROUNDS_PER_COUNT; round++) {
            nearest_kernel<<<blocks, threads>>>(clusters, b->count, b->nearest);
            CUDA_CHECK_LAUNCH("nearest_kernel");
            merge_kernel<<<blocks, threads>>>(clusters, b->nearest, b->count,
                                              (Node *)frame->scene.nodes, b->merges, b->keep,
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
    lay_out_depth_first(frame);
    CUDA_CHECK(cudaStreamSynchronize(0));
    report_phase_since(report, PHASE_BUILD, start);
}

/* The tree: n - 1 inner nodes (at least one allocated), the build's buffers and the layout's. */
static void allocate_tree(struct frame_resources *frame, const struct scene *scene)
{
    const size_t n = (size_t)scene->sphere_count;
    frame->scene.root = scene->sphere_count > 1 ? 0 : ~0;
    frame->scene.sphere_count = scene->sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.order, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.leaf_geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.leaf_from_camera, n * sizeof(float4)));
    struct build_buffers *b = &frame->build;
    allocate_sort(b, n);
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[0], n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->clusters[1], n * sizeof(Cluster)));
    /* CUB's compaction loads whole tiles, the slots past the count too (it keeps none of them):
     * zeroed once here, so that no load reads memory never written (compute-sanitizer's
     * initcheck), at no cost per frame. */
    CUDA_CHECK(cudaMemset(b->clusters[0], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMemset(b->clusters[1], 0, n * sizeof(Cluster)));
    CUDA_CHECK(cudaMalloc((void **)&b->nearest, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->keep, n));
    CUDA_CHECK(cudaMalloc((void **)&b->count, sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->merges, sizeof(unsigned int)));
    allocate_sort_scratch(b, &frame->scene, scene->sphere_count);
    b->select_scratch = NULL;
    CUDA_CHECK(cub::DeviceSelect::Flagged(NULL, b->select_scratch_bytes, b->clusters[0], b->keep,
                                          b->clusters[1], b->count, scene->sphere_count));
    CUDA_CHECK(cudaMalloc(&b->select_scratch, b->select_scratch_bytes));
    allocate_layout(n - 1);
}

static void free_tree(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree((void *)frame->scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame->scene.order));
    CUDA_CHECK(cudaFree((void *)frame->scene.leaf_geometry));
    CUDA_CHECK(cudaFree((void *)frame->scene.leaf_from_camera));
    free_sort(&frame->build);
    CUDA_CHECK(cudaFree(frame->build.clusters[0]));
    CUDA_CHECK(cudaFree(frame->build.clusters[1]));
    CUDA_CHECK(cudaFree(frame->build.nearest));
    CUDA_CHECK(cudaFree(frame->build.keep));
    CUDA_CHECK(cudaFree(frame->build.count));
    CUDA_CHECK(cudaFree(frame->build.merges));
    CUDA_CHECK(cudaFree(frame->build.select_scratch));
    free_layout();
}
