/* The last rounds' search in one block (finish_kernel): a thread a FINISH_THREADS-th cluster. */
__device__ inline void block_pick_nearest(const Cluster *clusters, int m, int *nearest)
{
    for (int i = threadIdx.x; i < m; i += FINISH_THREADS) {
        nearest[i] = pick_nearest(clusters, 0, m, i);
    }
}
