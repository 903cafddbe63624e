/* The tree, built on the GPU in five passes on the default stream: timed as the build phase, up
 * to the moment the GPU has finished it. */
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
    if (n > 1) {
        CUDA_CHECK(cudaMemset(b->arrivals, 0, (size_t)(n - 1) * sizeof(unsigned)));
        karras_kernel<<<(n - 1 + threads - 1) / threads, threads>>>(
            b->sorted_codes, n, (struct tree_node *)d->scene.nodes, b->node_parent,
            b->leaf_parent);
        CUDA_CHECK_LAUNCH("karras_kernel");
        fit_kernel<<<blocks, threads>>>(d->scene, (struct tree_node *)d->scene.nodes,
                                        b->node_parent, b->leaf_parent, b->arrivals, n);
        CUDA_CHECK_LAUNCH("fit_kernel");
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    report_phase_since(report, PHASE_BUILD, start);
}
