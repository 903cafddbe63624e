/* The hierarchy over the scene's spheres, built on the host: timed as the build phase. */
static void build_tree(const struct pt_world *world, struct bvh *bvh, struct report *report)
{
    double start = timer_now_us();
    if (pt_bvh_build(world->spheres, world->sphere_count, bvh)) {
        fprintf(stderr, "%s: error: out of host memory for the hierarchy of %d spheres\n",
                cuda_check_program, world->sphere_count);
        exit(1);
    }
    report_phase_since(report, PHASE_BUILD, start);
}
