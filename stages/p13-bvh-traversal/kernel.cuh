/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* Every thread loops: a thread without a path takes the next one, then every thread extends
 * its path by one segment. A thread leaves when the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct scene_on_gpu scene, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    for (;;) {
        if (!active) {
            unsigned long long q = atomicAdd(next_path, 1ULL);
            if (q >= total)
                return;
            path = start_path(q, width, height, camera);
            active = 1;
        }
        active = extend_path(&path, sums, sky, &scene, max_depth);
    }
}
