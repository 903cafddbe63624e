/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* Blocks of whole warps: every lane of a warp takes part in its ballot. */
#define WARP_LANES 32
#define FULL_WARP 0xffffffffu
#if BLOCK_THREADS % WARP_LANES != 0
#error "BLOCK_THREADS must be a multiple of 32: a partial warp's ballot would name absent lanes"
#endif

/* Every block loops: while paths are left, its threads meet, count the idle ones, and those
 * take the next paths, one atomic add for the block; then every thread with a path extends it
 * by one segment. queue_empty is the same in every thread of the block (it follows from the
 * barrier's count and the shared first index), so either every thread reaches the barriers of
 * an iteration or none does; once it is set no barrier is left, and each thread leaves when its
 * path has ended. The idle counts per warp are written before an iteration's first barrier
 * and read before its second; the first index is written between the two and read after the
 * second: a value is never written again before every thread has read it. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    __shared__ unsigned idle_in_warp[BLOCK_THREADS / WARP_LANES];
    __shared__ unsigned long long first_of_block;
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    unsigned lane = threadIdx.x % WARP_LANES, warp = threadIdx.x / WARP_LANES;
    struct path path;
    int active = 0, queue_empty = 0;
    for (;;) {
        if (!queue_empty) {
            unsigned idle_lanes = __ballot_sync(FULL_WARP, !active);
            if (lane == 0)
                idle_in_warp[warp] = (unsigned)__popc(idle_lanes);
            int idle = __syncthreads_count(!active);
            if (idle > 0) {
                /* This thread's rank among the block's idle threads, in thread order. */
                unsigned rank = (unsigned)__popc(idle_lanes & ((1u << lane) - 1u));
                for (unsigned w = 0; w < warp; ++w)
                    rank += idle_in_warp[w];
                if (threadIdx.x == 0)
                    first_of_block = atomicAdd(next_path, (unsigned long long)idle);
                __syncthreads();
                unsigned long long first = first_of_block;
                if (!active && first + rank < total) {
                    path = start_path(first + rank, width, height, camera);
                    active = 1;
                }
                queue_empty = first + (unsigned long long)idle >= total;
            }
        }
        if (!active)
            return; /* only once the queue is empty: until then every idle thread got a path */
        active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}
