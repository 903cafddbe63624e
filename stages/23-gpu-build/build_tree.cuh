/* The tree's build and its memory on the GPU: the hooks build_tree, allocate_tree, free_tree, on
 * the frame's scene and build buffers, with the stage's build (build_launches.cuh). */

/* The hierarchy, built on the GPU every frame (an interactive renderer's spheres move) on the
 * default stream, which the bands' streams wait for, and timed as the build phase up to the
 * moment the GPU has finished it. */
static void build_tree(const struct frame_resources *frame, struct report *report)
{
    double start = timer_now_us();
    launch_build(&frame->scene, &frame->build, frame->sphere_count);
    CUDA_CHECK(cudaStreamSynchronize(0));
    report_phase_since(report, PHASE_BUILD, start);
}

static void allocate_tree(struct frame_resources *frame, const struct scene *scene)
{
    allocate_build(&frame->scene, &frame->build, scene->sphere_count);
}

static void free_tree(const struct frame_resources *frame)
{
    free_build(&frame->scene, &frame->build);
}
