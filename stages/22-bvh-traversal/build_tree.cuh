/* The tree's build and its memory: built on the host every frame before the upload, which takes
 * it along (build_tree_on_host, upload_tree, free_tree_on_host); on the GPU only held
 * (allocate_tree, free_tree), nothing built there (build_tree). */

/* The hierarchy, built on the host every frame (an interactive renderer's spheres move): timed
 * as the build phase. */
static void build_tree_on_host(struct frame_resources *frame, const struct scene *scene,
                               struct report *report)
{
    double start = timer_now_us();
    bvh_free(&frame->build.bvh);
    if (bvh_build(scene->spheres, scene->sphere_count, &frame->build.bvh)) {
        fprintf(stderr, "%s: error: out of host memory for the hierarchy of %d spheres\n",
                stage_manifest.name, scene->sphere_count);
        exit(1);
    }
    report_phase_since(report, PHASE_BUILD, start);
}

/* Its nodes and the spheres' order, to the GPU with the scene; returns the bytes copied. */
static size_t upload_tree(const struct frame_resources *frame)
{
    const size_t n = (size_t)frame->sphere_count;
    const size_t node_bytes = (size_t)frame->build.bvh.node_count * sizeof(struct spec_bvh_node);
    CUDA_CHECK(cudaMemcpy((void *)frame->scene.nodes, frame->build.bvh.nodes, node_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)frame->scene.order, frame->build.bvh.order, n * sizeof(int),
                          cudaMemcpyHostToDevice));
    return node_bytes + n * sizeof(int);
}

static void free_tree_on_host(struct frame_resources *frame) { bvh_free(&frame->build.bvh); }

static void build_tree(const struct frame_resources *, struct report *) {}

/* The tree's nodes and the spheres' order on the GPU: at most 2n - 1 nodes (bvh.h). */
static void allocate_tree(struct frame_resources *frame, const struct scene *scene)
{
    const size_t n = (size_t)scene->sphere_count;
    frame->build.bvh = {}; /* none built yet */
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.nodes, 2 * n * sizeof(struct spec_bvh_node)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.order, n * sizeof(int)));
}

static void free_tree(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree((void *)frame->scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame->scene.order));
}
