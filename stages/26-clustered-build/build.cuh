/* The build's passes after the sort, and its working memory on the GPU (build_buffers). */

#ifndef SEARCH_RADIUS /* clusters either side, in Morton order, that a cluster considers */
#define SEARCH_RADIUS 16
#endif
/* Rounds of merging between two reads of the cluster count by the host. */
#define ROUNDS_PER_COUNT 3

/* Each leaf's two views of its sphere, copied into tree order, and its first cluster: the leaf
 * itself, in a box of centre +- radius (one thread per leaf). */
__global__ void leaf_kernel(const Sphere *spheres, const float4 *geometry, const float4 *from_camera,
                            const int *order, float4 *leaf_geometry, float4 *leaf_from_camera,
                            Cluster *clusters, int n)
{
    const int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n) {
        return;
    }
    const int s = __ldg(&order[leaf]);
    leaf_geometry[leaf] = __ldg(&geometry[s]);
    leaf_from_camera[leaf] = __ldg(&from_camera[s]);
    const Sphere sphere = spheres[s];
    const float3 r = make_float3(sphere.radius, sphere.radius, sphere.radius);
    /* The whole cluster, its padding word too: the rounds copy clusters whole, and a copy of a
     * word never written is what compute-sanitizer's initcheck reports. */
    Cluster cluster;
    cluster.lo = sub3(sphere.center, r);
    cluster.id = ~leaf;
    cluster.hi = add3(sphere.center, r);
    cluster.unused = 0;
    clusters[leaf] = cluster;
}

/* Half the surface area of the box around two boxes: what a ray pays to enter their union. A
 * NaN (overflowed coordinates) counts as the largest, so that every cluster has an order. */
__device__ inline float union_area(const Cluster *a, const Cluster *b)
{
    const float dx = fmaxf(a->hi.x, b->hi.x) - fminf(a->lo.x, b->lo.x);
    const float dy = fmaxf(a->hi.y, b->hi.y) - fminf(a->lo.y, b->lo.y);
    const float dz = fmaxf(a->hi.z, b->hi.z) - fminf(a->lo.z, b->lo.z);
    const float area = dx * dy + dy * dz + dz * dx;
    return area == area ? area : INFINITY;
}

/* Cluster i's nearest neighbour (window[j - first] is cluster j) among the SEARCH_RADIUS either
 * side of m clusters: the least union area, and of equal areas the first in order. Some pair
 * always picks each other (the least area, lowest index), so every round merges at least one. */
__device__ inline int pick_nearest(const Cluster *window, int first, int m, int i)
{
    const Cluster self = window[i - first];
    float least = INFINITY;
    int pick = -1;
    const int last = min(i + SEARCH_RADIUS, m - 1);
    for (int j = max(i - SEARCH_RADIUS, 0); j <= last; j++) {
        if (j == i) {
            continue;
        }
        const Cluster other = window[j - first];
        const float area = union_area(&self, &other);
        if (pick < 0 || area < least) {
            least = area;
            pick = j;
        }
    }
    return pick;
}

/* A round over the whole GPU, in three launches: every cluster's nearest neighbour
 * (nearest_kernel.cuh), the merges (keep[] marks the clusters left; slots from the count up to
 * upper, the host's bound on it, are marked gone), then CUB's compaction. */
__global__ void merge_kernel(Cluster *clusters, const int *nearest, const int *count, Node *nodes,
                             unsigned int *merges, unsigned char *keep, int upper, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < upper) {
        keep[i] = i < *count && merge_pair(clusters, nearest, i, nodes, merges, n);
    }
}

/* The last rounds, of FINISH_CLUSTERS or fewer, in one block: the same steps, barriers between
 * them, a block-wide prefix sum to compact: one launch, not three a round and the host's reads. */
#define FINISH_THREADS 1024
#define FINISH_PER_THREAD 4
#define FINISH_CLUSTERS (FINISH_THREADS * FINISH_PER_THREAD)
__device__ inline void block_pick_nearest(const Cluster *, int, int *); /* block_pick.cuh */
__global__ void __launch_bounds__(FINISH_THREADS)
    finish_kernel(Cluster *clusters, Cluster *survivors, int *nearest, const int *count,
                  Node *nodes, unsigned int *merges, int n)
{
    typedef cub::BlockScan<int, FINISH_THREADS> BlockScan;
    __shared__ typename BlockScan::TempStorage scan_storage;
    int m = *count;
    while (m > 1) {
        block_pick_nearest(clusters, m, nearest);
        __syncthreads();
        /* Each thread merges, then moves, FINISH_PER_THREAD consecutive slots. */
        const int first = threadIdx.x * FINISH_PER_THREAD;
        bool keep[FINISH_PER_THREAD];
        int kept = 0;
        for (int k = 0; k < FINISH_PER_THREAD; k++) {
            keep[k] = first + k < m && merge_pair(clusters, nearest, first + k, nodes, merges, n);
            kept += keep[k];
        }
        __syncthreads(); /* every merge written before any slot moves */
        int offset, total;
        BlockScan(scan_storage).ExclusiveSum(kept, offset, total);
        for (int k = 0; k < FINISH_PER_THREAD; k++) {
            if (keep[k]) {
                survivors[offset++] = clusters[first + k];
            }
        }
        __syncthreads(); /* every slot moved, and the scan's storage free, before the next round */
        Cluster *swap = clusters;
        clusters = survivors;
        survivors = swap;
        m = total;
    }
}

/* The build's working memory on the GPU: the sort's (centres' box, codes, indices, CUB scratch)
 * and the rounds' (two arrays of clusters in turns, picks, keeps, count, nodes made so far). */
struct build_buffers {
    unsigned int *bounds;                /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                        /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    Cluster *clusters[2];                /* n each */
    int *nearest;                        /* n */
    unsigned char *keep;                 /* n */
    int *count;                          /* 1: the clusters left */
    unsigned int *merges;                /* 1: the nodes made */
    void *select_scratch;
    size_t select_scratch_bytes;
};
