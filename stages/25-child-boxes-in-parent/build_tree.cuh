/* The tree's build and its memory on the GPU: the hooks build_tree, allocate_tree, free_tree. */

/* The hierarchy, built on the GPU every frame (an interactive renderer's spheres move) on the
 * default stream, which the bands' streams wait for, and timed as the build phase up to the
 * moment the GPU has finished it: six passes. */
static void build_tree(const struct frame_resources *frame, struct report *report)
{
    double start = timer_now_us();
    const int n = frame->sphere_count, threads = 256;
    const struct build_buffers *b = &frame->build;
    sort_spheres(&frame->scene, b, n);
    leaf_views_kernel<<<(n + threads - 1) / threads, threads>>>(
        frame->scene.geometry, frame->scene.from_camera, frame->scene.order,
        (float4 *)frame->scene.leaf_geometry, (float4 *)frame->scene.leaf_from_camera, n);
    CUDA_CHECK_LAUNCH("leaf_views_kernel");
    if (n > 1) {
        CUDA_CHECK(cudaMemsetAsync(b->arrivals, 0, (size_t)(n - 1) * sizeof(unsigned int), 0));
        karras_kernel<<<(n - 1 + threads - 1) / threads, threads>>>(
            b->sorted_codes, n, (Node *)frame->scene.nodes, b->node_parent, b->leaf_parent);
        CUDA_CHECK_LAUNCH("karras_kernel");
        fit_kernel<<<(n + threads - 1) / threads, threads>>>(frame->scene, (Node *)frame->scene.nodes,
                                                            b->node_parent, b->leaf_parent,
                                                            b->arrivals, n);
        CUDA_CHECK_LAUNCH("fit_kernel");
    }
    CUDA_CHECK(cudaStreamSynchronize(0));
    report_phase_since(report, PHASE_BUILD, start);
}

/* The tree: n - 1 inner nodes (at least one allocated), and the build's buffers. */
static void allocate_tree(struct frame_resources *frame, const struct scene *scene)
{
    const size_t n = (size_t)scene->sphere_count;
    frame->scene.root = scene->sphere_count > 1 ? 0 : ~0;
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.order, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.leaf_geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.leaf_from_camera, n * sizeof(float4)));
    struct build_buffers *b = &frame->build;
    allocate_sort(b, n);
    CUDA_CHECK(cudaMalloc((void **)&b->node_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->leaf_parent, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&b->arrivals, n * sizeof(unsigned int)));
    allocate_sort_scratch(b, &frame->scene, scene->sphere_count);
}

static void free_tree(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree((void *)frame->scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame->scene.order));
    CUDA_CHECK(cudaFree((void *)frame->scene.leaf_geometry));
    CUDA_CHECK(cudaFree((void *)frame->scene.leaf_from_camera));
    free_sort(&frame->build);
    CUDA_CHECK(cudaFree(frame->build.node_parent));
    CUDA_CHECK(cudaFree(frame->build.leaf_parent));
    CUDA_CHECK(cudaFree(frame->build.arrivals));
}
