/* The tree's build and its memory on the GPU: the hooks build_tree, allocate_tree, free_tree. */

/* Built on the host, the tree is uploaded with the scene: host.cuh builds it before the upload. */
#define TREE_BUILT_ON_HOST

/* The hierarchy, built on the host every frame (an interactive renderer's spheres move): timed
 * as the build phase. */
static void build_tree(struct host_scene *host, const struct scene *scene, struct report *report)
{
    double start = timer_now_us();
    bvh_free(&host->bvh);
    if (bvh_build(scene->spheres, scene->sphere_count, &host->bvh)) {
        fprintf(stderr, "%s: error: out of host memory for the hierarchy of %d spheres\n",
                stage_manifest.name, scene->sphere_count);
        exit(1);
    }
    report_phase_since(report, PHASE_BUILD, start);
}

/* The tree's nodes and the spheres' order on the GPU: at most 2n - 1 nodes (bvh.h). */
static void allocate_tree(struct frame_resources *frame, const struct scene *scene)
{
    const size_t n = (size_t)scene->sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.nodes, 2 * n * sizeof(struct spec_bvh_node)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.order, n * sizeof(int)));
}

static void free_tree(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree((void *)frame->scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame->scene.order));
}
