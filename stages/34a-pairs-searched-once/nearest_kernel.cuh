/* Each pair of clusters looked at once by a block: the area of the union of clusters i and j
 * (|i - j| at most SEARCH_RADIUS) is computed by one thread, which offers it to both as a key,
 * (area, other's index) in 64 bits, taking the smaller with an atomic minimum. The smallest key is
 * the least area and, of equal areas, the lowest index: stage 26's pick_nearest's choice, from the
 * same candidates, for half the area tests (pairs across a block's edge: by both blocks). */

/* No partner yet: larger than every key. */
#define NO_PICK 0xffffffffffffffffull

/* Cluster j's key for cluster i: the area's bits above, j below. Areas are never negative (a
 * cluster's box has lo <= hi, and union_area makes a NaN infinity), so their bits order as the
 * floats do; + 0.0f turns a -0.0 into +0.0, which compare equal as floats. */
__device__ inline unsigned long long pair_key(float area, int j)
{
    return (unsigned long long)__float_as_uint(area + 0.0f) << 32 | (unsigned int)j;
}

/* The key's partner, or -1 where no candidate offered one (a lone cluster). */
__device__ inline int key_pick(unsigned long long key)
{
    return key == NO_PICK ? -1 : (int)(unsigned int)key;
}

/* A round's first launch, from shared memory as in stage 34: a block's clusters and the
 * SEARCH_RADIUS either side in its window, and a key a slot. A thread pairs its cluster i with
 * the SEARCH_RADIUS after it, offering each area to both; and, for a cluster near the block's
 * start, with those before it in the window, which another block pairs for itself, offering the
 * area to i only. */
#define WINDOW_THREADS 256 /* the most threads a block: build_launches.cuh launches 256 */
#define WINDOW (WINDOW_THREADS + 2 * SEARCH_RADIUS)
__global__ void __launch_bounds__(WINDOW_THREADS)
    nearest_kernel(const Cluster *clusters, const int *count, int *nearest)
{
    __shared__ Cluster window[WINDOW];
    __shared__ unsigned long long keys[WINDOW];
    const int m = *count;
    const int start = (int)(blockIdx.x * blockDim.x);
    const int first = start - SEARCH_RADIUS; /* the cluster in window[0] */
    for (int k = threadIdx.x; k < (int)blockDim.x + 2 * SEARCH_RADIUS; k += blockDim.x) {
        const int j = first + k;
        if (j >= 0 && j < m) {
            window[k] = clusters[j];
        }
        keys[k] = NO_PICK;
    }
    __syncthreads(); /* the window whole before any pair is looked at */
    const int i = start + threadIdx.x;
    if (i < m) {
        const Cluster self = window[i - first];
        const int last = min(i + SEARCH_RADIUS, m - 1);
        for (int j = i + 1; j <= last; j++) {
            const float area = union_area(&self, &window[j - first]);
            atomicMin(&keys[i - first], pair_key(area, j));
            atomicMin(&keys[j - first], pair_key(area, i));
        }
        for (int j = max(i - SEARCH_RADIUS, 0); j < start; j++) {
            atomicMin(&keys[i - first], pair_key(union_area(&self, &window[j - first]), j));
        }
    }
    __syncthreads(); /* every pair offered before any key is read */
    if (i < m) {
        nearest[i] = key_pick(keys[i - first]);
    }
}
