/* A round's first launch: each cluster's nearest neighbour (build.cuh), read from global memory. */
__global__ void nearest_kernel(const Cluster *clusters, const int *count, int *nearest)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = *count;
    if (i < m) {
        nearest[i] = pick_nearest(clusters, 0, m, i);
    }
}
