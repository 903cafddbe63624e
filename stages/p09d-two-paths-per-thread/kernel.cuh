/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* Every thread loops: each of its slots without a path takes the next one, then the thread
 * finds the hits of all its paths in one sphere loop and extends each by one segment. Once the
 * counter has passed the last path a slot that ends stays idle; its old ray is still tested in
 * the sphere loop (cheaper than a branch per sphere) and its hit ignored. A slot that never got
 * a path holds path 0's camera ray for that. A thread leaves when all its slots are idle and
 * the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path paths[PATHS_PER_THREAD];
    int active[PATHS_PER_THREAD];
    int queue_empty = 0;
#pragma unroll
    for (int k = 0; k < PATHS_PER_THREAD; ++k) {
        paths[k] = start_path(0, width, height, camera);
        active[k] = 0;
    }
    for (;;) {
        int any_active = 0;
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k) {
            if (!active[k] && !queue_empty) {
                unsigned long long q = atomicAdd(next_path, 1ULL);
                if (q < total) {
                    paths[k] = start_path(q, width, height, camera);
                    active[k] = 1;
                } else {
                    queue_empty = 1; /* no more atomics: the counter stays past the end */
                }
            }
            any_active |= active[k];
        }
        if (!any_active)
            return;
        struct hit hits[PATHS_PER_THREAD];
        closest_hits(paths, sphere_count, hits);
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k)
            if (active[k])
                active[k] = extend_path(&paths[k], hits[k], sums, sky, max_depth);
    }
}
