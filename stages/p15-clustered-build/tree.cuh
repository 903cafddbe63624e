/* The tree, built on the GPU on the default stream: the sort, then rounds of clustering; timed as
 * the build phase, up to the moment the GPU has finished it. */
static void build_tree(const struct device_paths *d, int n, struct report *report)
{
    double start = timer_now_us();
    const int threads = 256;
    const struct build_buffers *b = &d->build;
    const unsigned extremes[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0u, 0u, 0u};
    CUDA_CHECK(cudaMemcpy(b->bounds, extremes, sizeof extremes, cudaMemcpyHostToDevice));
    int blocks = (n + threads - 1) / threads;
    centre_box_kernel<<<blocks < 1024 ? blocks : 1024, threads>>>(d->scene.spheres, n, b->bounds);
    CUDA_CHECK_LAUNCH("centre_box_kernel");
    morton_kernel<<<blocks, threads>>>(d->scene.spheres, n, b->bounds, b->codes, b->indices);
    CUDA_CHECK_LAUNCH("morton_kernel");
    size_t scratch_bytes = b->sort_scratch_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b->sort_scratch, scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)d->scene.order,
                                               n, 0, 63));
    CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortPairs");
    leaf_kernel<<<blocks, threads>>>(d->scene.spheres, d->scene.order, b->clusters[0], n);
    CUDA_CHECK_LAUNCH("leaf_kernel");
    /* Rounds of merging until one cluster is left: over the whole GPU while many are left, the
     * launches sized by upper, the count the host last read (the count only falls; the kernels
     * read the true count on the GPU); the last rounds in one block. */
    CUDA_CHECK(cudaMemset(b->merges, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(b->count, &n, sizeof n, cudaMemcpyHostToDevice));
    struct tree_node *nodes = (struct tree_node *)d->scene.nodes;
    struct cluster *clusters = b->clusters[0], *survivors = b->clusters[1];
    int upper = n;
    while (upper > 1) {
        if (upper <= FINISH_CLUSTERS) {
            finish_kernel<<<1, FINISH_THREADS>>>(clusters, survivors, b->nearest, b->count, nodes,
                                                 b->merges, n);
            CUDA_CHECK_LAUNCH("finish_kernel");
            break;
        }
        int round_blocks = (upper + threads - 1) / threads;
        for (int round = 0; round < ROUNDS_PER_COUNT; ++round) {
            nearest_kernel<<<round_blocks, threads>>>(clusters, b->count, b->nearest);
            CUDA_CHECK_LAUNCH("nearest_kernel");
            merge_kernel<<<round_blocks, threads>>>(clusters, b->nearest, b->count, nodes,
                                                    b->merges, b->keep, upper, n);
            CUDA_CHECK_LAUNCH("merge_kernel");
            size_t select_bytes = b->select_scratch_bytes;
            CUDA_CHECK(cub::DeviceSelect::Flagged(b->select_scratch, select_bytes, clusters,
                                                  b->keep, survivors, b->count, upper));
            CUDA_CHECK_LAUNCH("cub::DeviceSelect::Flagged");
            struct cluster *swap = clusters;
            clusters = survivors;
            survivors = swap;
        }
        CUDA_CHECK(cudaMemcpy(&upper, b->count, sizeof upper, cudaMemcpyDeviceToHost));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    report_phase_since(report, PHASE_BUILD, start);
}
