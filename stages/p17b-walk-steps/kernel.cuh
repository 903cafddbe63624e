/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* A thread whose walk is over waits until fewer than REFILL_BELOW lanes of its warp are still
 * walking, so that the ends of segments, whose code diverges from the walk's, run for many lanes
 * at once (32: each ends its segment as soon as its walk is over; 1: once every walk of the
 * warp is over, as p17's warps do). */
#ifndef REFILL_BELOW
#define REFILL_BELOW 16
#endif

/* Every thread loops, one node of its walk a turn: a thread whose walk is over ends its segment
 * (the scatter) and starts the next segment's walk, or takes the next path, once enough of its
 * warp's walks are over too, while the other threads of its warp walk on; none waits for the
 * longest walk of its warp. A thread leaves when the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct scene_on_gpu scene, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    struct walk walk;
    struct pending stack[TREE_STACK];
    int active = 0;
    for (;;) {
        if (!active) {
            unsigned long long q = atomicAdd(next_path, 1ULL);
            if (q >= total)
                return;
            path = start_path(q, width, height, camera);
            start_walk(&walk, path.ray, &scene);
            active = 1;
        }
        int walking = walk_step(&walk, stack, path.ray, &scene);
        /* The lanes here now (a lane that has left, or is elsewhere in the loop, is not
         * counted): the waiting is a schedule, not a rule; a lane never waits on itself. */
        int lanes_walking = __popc(__ballot_sync(__activemask(), walking));
        if (walking || lanes_walking >= REFILL_BELOW)
            continue;
        active = end_segment(&path, walk.hit, sums, sky, &scene, max_depth);
        if (active)
            start_walk(&walk, path.ray, &scene);
    }
}
