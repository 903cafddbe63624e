/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* Blocks of whole warps: every lane of a warp takes part in its votes. */
#define WARP_LANES 32
#define FULL_WARP 0xffffffffu
#if BLOCK_THREADS % WARP_LANES != 0
#error "BLOCK_THREADS must be a multiple of 32: a partial warp's votes would name absent lanes"
#endif

/* Every warp loops: when none of its lanes has a path, lane 0 takes the next 32 and lane k
 * starts the k-th; then every lane with a path extends it by one segment. No lane leaves the
 * loop alone: the whole warp leaves when the counter has passed the last path, so every lane
 * reaches every vote and shuffle (the full mask is valid). Lanes whose index falls past the
 * last path stay in the loop without one until their warp leaves. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    unsigned lane = threadIdx.x % WARP_LANES;
    struct path path;
    int active = 0;
    for (;;) {
        if (__all_sync(FULL_WARP, !active)) {
            unsigned long long first = 0;
            if (lane == 0)
                first = atomicAdd(next_path, (unsigned long long)WARP_LANES);
            first = __shfl_sync(FULL_WARP, first, 0);
            if (first >= total)
                return; /* the same for every lane: the warp leaves together */
            if (first + lane < total) {
                path = start_path(first + lane, width, height, camera);
                active = 1;
            }
        }
        if (active)
            active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}
