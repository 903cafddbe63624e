/* The tree built on every GPU (26's build_launches.cuh on each), from the spheres the upload sent
 * it: the hooks build_tree_on_host (nothing: no tree is built on the host) and build_tree. Every
 * GPU walks the whole tree for its rows, so each needs all of it; building it on each costs each
 * GPU the build, and no copy between GPUs. */

static void build_tree_on_host(struct frame_resources *, const struct scene *, struct report *) {}

/* Each GPU's build on its default stream, which its bands' streams wait for, the GPUs in turn:
 * one host thread launches them, and a build's count reads between its rounds wait for that GPU,
 * so the next GPU's build starts as the last rounds of this one's are launched. Timed as the build
 * phase, up to the moment every GPU has finished its tree. */
static void build_tree(const struct frame_resources *frame, struct report *report)
{
    double start = timer_now_us();
    for (int g = 0; g < frame->gpu_count; g++) {
        const struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        launch_build(&gpu->scene, &gpu->build, frame->sphere_count);
    }
    for (int g = 0; g < frame->gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(frame->gpus[g].device));
        CUDA_CHECK(cudaStreamSynchronize(0));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
    report_phase_since(report, PHASE_BUILD, start);
}
