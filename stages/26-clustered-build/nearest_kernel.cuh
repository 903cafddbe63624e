/* A round's first launch: every cluster's nearest neighbour (pick_nearest, build.cuh), read
 * straight from the clusters in global memory. */
__global__ void nearest_kernel(const Cluster *clusters, const int *count, int *nearest)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = *count;
    if (i < m) {
        nearest[i] = pick_nearest(clusters, 0, m, i);
    }
}
