/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

#define WARP_THREADS 32
#define BLOCK_WARPS (BLOCK_THREADS / WARP_THREADS)
#define FULL_WARP 0xffffffffu /* every lane takes part in the shuffles */

/* The block scan's second level is one warp scanning the warps' totals. */
#if BLOCK_THREADS % WARP_THREADS != 0 || BLOCK_WARPS > WARP_THREADS
#error "BLOCK_THREADS must be whole warps, at most 32 of them"
#endif

/* What the block shares: about 6 KiB, on chip for the whole render. */
struct block_compaction {
    struct path_slots slots;
    int warp_offsets[BLOCK_WARPS];     /* each warp's count of live paths, then those before it */
    int live;                          /* the block's live paths */
    unsigned long long first_new_path; /* the first of the paths the free slots take */
};

/* How many threads before this one in the block have `flag` set (an exclusive prefix sum), and
 * in *total how many in all. Two levels: each warp scans its 32 flags in registers, then one
 * warp scans the warps' totals through shared memory. Every thread of the block must call it:
 * it holds two barriers. */
__device__ static int block_exclusive_scan(int flag, struct block_compaction *shared, int *total)
{
    int lane = (int)threadIdx.x % WARP_THREADS, warp = (int)threadIdx.x / WARP_THREADS;
    /* Level 1: after the step with offset k each lane holds the sum of the 2k lanes ending at
     * it (Hillis and Steele); 5 shuffles, no shared memory, no barrier. */
    int inclusive = flag;
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        int before = __shfl_up_sync(FULL_WARP, inclusive, offset);
        if (lane >= offset)
            inclusive += before;
    }
    if (lane == WARP_THREADS - 1)
        shared->warp_offsets[warp] = inclusive; /* the warp's total */
    __syncthreads(); /* every warp's total written */
    /* Level 2: warp 0 scans the BLOCK_WARPS totals the same way (the whole warp shuffles; lanes
     * past the last warp carry 0). Each warp's offset is the sum of the totals before it. */
    if (warp == 0) {
        int warp_total = lane < BLOCK_WARPS ? shared->warp_offsets[lane] : 0;
        int running = warp_total;
        for (int offset = 1; offset < BLOCK_WARPS; offset *= 2) {
            int before = __shfl_up_sync(FULL_WARP, running, offset);
            if (lane >= offset)
                running += before;
        }
        if (lane < BLOCK_WARPS)
            shared->warp_offsets[lane] = running - warp_total;
        if (lane == BLOCK_WARPS - 1)
            shared->live = running;
    }
    __syncthreads(); /* every warp's offset written */
    *total = shared->live;
    return shared->warp_offsets[warp] + inclusive - flag;
}

/* The block loops over three steps: compact the live paths to the front of its slots, fill the
 * free slots with new paths, extend every path by one segment. It leaves, all threads at once,
 * when it has no live path and the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  int sphere_count, int width, int height, int samples,
                                  int max_depth)
{
    __shared__ struct block_compaction shared;
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    int queue_empty = 0; /* thread 0's: the counter has passed the last path */
    for (;;) {
        /* Compaction: each live path to its slot, in the order the paths had. */
        int live;
        int slot = block_exclusive_scan(active, &shared, &live);
        if (active)
            stage_path(&shared.slots, slot, path);
        /* Regeneration: one atomic add takes a path for each of the free slots. */
        if (threadIdx.x == 0) {
            int free_slots = BLOCK_THREADS - live;
            unsigned long long first = total; /* none taken */
            if (free_slots > 0 && !queue_empty) {
                first = atomicAdd(next_path, (unsigned long long)free_slots);
                queue_empty = first + (unsigned long long)free_slots >= total;
            }
            shared.first_new_path = first;
        }
        __syncthreads(); /* the paths staged, the first new path known */
        unsigned long long first_new_path = shared.first_new_path;
        if (live == 0 && first_new_path >= total)
            return; /* the same values in every thread: the whole block leaves */
        int t = (int)threadIdx.x;
        if (t < live) {
            path = unstage_path(&shared.slots, t);
            active = 1;
        } else {
            unsigned long long q = first_new_path + (unsigned long long)(t - live);
            active = q < total;
            if (active)
                path = start_path(q, width, height, camera);
        }
        if (active)
            active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}
