/* The last rounds' search, in one block (finish_kernel, build.cuh), a pair at a time: each thread
 * pairs its clusters (every FINISH_THREADS-th) with the SEARCH_RADIUS after them, offering each
 * area to both clusters' keys in shared memory (nearest_kernel.cuh's pair_key). */
__device__ inline void block_pick_nearest(const Cluster *clusters, int m, int *nearest)
{
    __shared__ unsigned long long keys[FINISH_CLUSTERS];
    for (int i = threadIdx.x; i < m; i += FINISH_THREADS) {
        keys[i] = NO_PICK;
    }
    __syncthreads(); /* every key reset before any pair is offered */
    for (int i = threadIdx.x; i < m; i += FINISH_THREADS) {
        const Cluster self = clusters[i];
        const int last = min(i + SEARCH_RADIUS, m - 1);
        for (int j = i + 1; j <= last; j++) {
            const Cluster other = clusters[j];
            const float area = union_area(&self, &other);
            atomicMin(&keys[i], pair_key(area, j));
            atomicMin(&keys[j], pair_key(area, i));
        }
    }
    __syncthreads(); /* every pair offered before any key is read */
    for (int i = threadIdx.x; i < m; i += FINISH_THREADS) {
        nearest[i] = key_pick(keys[i]);
    }
}
