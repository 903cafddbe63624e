/* The build's tree over the sorted spheres: rounds in which each cluster picks its nearest
 * neighbour in Morton order, and pairs that picked each other merge into a node (merge.cuh). */

/* How many clusters on either side, in Morton order, a cluster considers for its neighbour. */
#define SEARCH_RADIUS 16
/* Rounds of merging between two reads of the cluster count by the host. */
#define ROUNDS_PER_COUNT 3

/* Each leaf's first cluster: the leaf itself, in a box of its sphere's centre +- radius (as
 * common/raytrace/bvh.c boxes a sphere), one thread per leaf. */
__global__ void leaf_kernel(const struct pt_sphere *spheres, const int *order,
                            struct cluster *clusters, int n)
{
    int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n)
        return;
    struct pt_sphere sphere = spheres[order[leaf]];
    struct spec_vec3 r = spec_v3(sphere.radius, sphere.radius, sphere.radius);
    /* The whole cluster, its padding word too: the rounds copy clusters whole, and a copy of a
     * word never written is what compute-sanitizer's initcheck reports. */
    struct cluster c;
    c.lo = spec_sub(sphere.centre, r);
    c.id = ~leaf;
    c.hi = spec_add(sphere.centre, r);
    c.unused = 0;
    clusters[leaf] = c;
}

/* Half the surface area of the box around two boxes: what a ray pays to enter their union. A
 * NaN (overflowed coordinates) counts as the largest, so that every cluster has an order. */
__device__ static float union_area(const struct cluster *a, const struct cluster *b)
{
    float dx = fmaxf(a->hi.x, b->hi.x) - fminf(a->lo.x, b->lo.x);
    float dy = fmaxf(a->hi.y, b->hi.y) - fminf(a->lo.y, b->lo.y);
    float dz = fmaxf(a->hi.z, b->hi.z) - fminf(a->lo.z, b->lo.z);
    float area = dx * dy + dy * dz + dz * dx;
    return area == area ? area : INFINITY;
}

/* Cluster i's nearest neighbour among the SEARCH_RADIUS on either side (of m clusters): the
 * least union area, and of equal areas the first in order. Some pair always picks each other
 * (the least area, lowest index), so every round merges at least one. */
__device__ static int pick_nearest(const struct cluster *clusters, int m, int i)
{
    struct cluster self = clusters[i];
    float least = INFINITY;
    int pick = -1;
    int last = min(i + SEARCH_RADIUS, m - 1);
    for (int j = max(i - SEARCH_RADIUS, 0); j <= last; ++j) {
        if (j == i)
            continue;
        struct cluster other = clusters[j];
        float area = union_area(&self, &other);
        if (pick < 0 || area < least) {
            least = area;
            pick = j;
        }
    }
    return pick;
}

/* A round over the whole GPU, in three launches: every cluster's nearest neighbour, the merges
 * (keep[] marks the clusters left; slots from the count up to upper, the host's bound on it,
 * are marked gone), then CUB's compaction. */
__global__ void nearest_kernel(const struct cluster *clusters, const int *count, int *nearest)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = *count;
    if (i < m)
        nearest[i] = pick_nearest(clusters, m, i);
}

__global__ void merge_kernel(struct cluster *clusters, const int *nearest, const int *count,
                             struct tree_node *nodes, unsigned *merges, unsigned char *keep,
                             int upper, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < upper)
        keep[i] = i < *count && merge_pair(clusters, nearest, i, nodes, merges, n);
}

/* The last rounds, once FINISH_CLUSTERS or fewer are left, in one block: the same steps with the
 * block's barriers between them and a block-wide prefix sum for the compaction, so that the many
 * rounds of a few clusters cost one launch, not three each and the host's reads of the count. */
#define FINISH_THREADS 1024
#define FINISH_PER_THREAD 4
#define FINISH_CLUSTERS (FINISH_THREADS * FINISH_PER_THREAD)
__global__ void __launch_bounds__(FINISH_THREADS)
    finish_kernel(struct cluster *clusters, struct cluster *survivors, int *nearest,
                  const int *count, struct tree_node *nodes, unsigned *merges, int n)
{
    typedef cub::BlockScan<int, FINISH_THREADS> block_scan;
    __shared__ typename block_scan::TempStorage scan_storage;
    int m = *count;
    while (m > 1) {
        for (int i = threadIdx.x; i < m; i += FINISH_THREADS)
            nearest[i] = pick_nearest(clusters, m, i);
        __syncthreads();
        /* Each thread merges, then moves, FINISH_PER_THREAD consecutive slots. */
        int first = threadIdx.x * FINISH_PER_THREAD;
        int keep[FINISH_PER_THREAD];
        int kept = 0;
        for (int k = 0; k < FINISH_PER_THREAD; ++k) {
            keep[k] = first + k < m && merge_pair(clusters, nearest, first + k, nodes, merges, n);
            kept += keep[k];
        }
        __syncthreads(); /* every merge written before any slot moves */
        int offset, total;
        block_scan(scan_storage).ExclusiveSum(kept, offset, total);
        for (int k = 0; k < FINISH_PER_THREAD; ++k)
            if (keep[k])
                survivors[offset++] = clusters[first + k];
        __syncthreads(); /* every slot moved, and the scan's storage free, before the next round */
        struct cluster *swap = clusters;
        clusters = survivors;
        survivors = swap;
        m = total;
    }
}
