/* A round's first launch, from shared memory: a block's clusters and the SEARCH_RADIUS on either
 * side of them loaded once into the block's window, then every cluster's nearest neighbour picked
 * from the window (pick_nearest, build.cuh): the same picks as from global memory, each cluster
 * loaded once a block instead of once for each of the 2 * SEARCH_RADIUS clusters that look at it. */
#define WINDOW_THREADS 256 /* the most threads a block: build_launches.cuh launches 256 */
__global__ void __launch_bounds__(WINDOW_THREADS)
    nearest_kernel(const Cluster *clusters, const int *count, int *nearest)
{
    __shared__ Cluster window[WINDOW_THREADS + 2 * SEARCH_RADIUS];
    const int m = *count;
    const int first = (int)(blockIdx.x * blockDim.x) - SEARCH_RADIUS; /* the cluster in window[0] */
    for (int k = threadIdx.x; k < (int)blockDim.x + 2 * SEARCH_RADIUS; k += blockDim.x) {
        const int j = first + k;
        if (j >= 0 && j < m) {
            window[k] = clusters[j];
        }
    }
    __syncthreads(); /* the window whole before any thread reads its neighbours' slots */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        nearest[i] = pick_nearest(window, first, m, i);
    }
}
