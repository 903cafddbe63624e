/* The build's passes after the sort, and its working memory on the GPU (build_buffers). */

/* Each leaf's two views of its sphere, copied into tree order (one thread per leaf), so that the
 * walk reads a leaf's slot without going through order[]. */
__global__ void leaf_views_kernel(const float4 *geometry, const float4 *from_camera,
                                  const int *order, float4 *leaf_geometry, float4 *leaf_from_camera,
                                  int n)
{
    const int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n) {
        return;
    }
    const int s = __ldg(&order[leaf]);
    leaf_geometry[leaf] = __ldg(&geometry[s]);
    leaf_from_camera[leaf] = __ldg(&from_camera[s]);
}

/* Writes a child's box into its parent, in the half that names the child. */
__device__ inline void store_child_box(Node *parent, int child, float3 lo, float3 hi)
{
    if (parent->left == child) {
        parent->left_lo = lo;
        parent->left_hi = hi;
    } else {
        parent->right_lo = lo;
        parent->right_hi = hi;
    }
}

/* The boxes from the leaves up, one thread per leaf: each thread writes its child's box into the
 * parent; at each parent the first thread to arrive (its counter was 0) stops; the second finds
 * both boxes there, joins them into the parent's own box and climbs on with it, to the root. */
__global__ void fit_kernel(Scene scene, Node *nodes, const int *node_parent, const int *leaf_parent,
                           unsigned int *arrivals, int n)
{
    const int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n || n < 2) {
        return;
    }
    const Sphere sphere = scene.spheres[scene.order[leaf]];
    const float3 r = make_float3(sphere.radius, sphere.radius, sphere.radius);
    float3 lo = sub3(sphere.center, r), hi = add3(sphere.center, r);
    int child = ~leaf;
    int node = leaf_parent[leaf];
    while (node >= 0) {
        store_child_box(&nodes[node], child, lo, hi);
        __threadfence(); /* this thread's box is seen before its arrival */
        if (atomicAdd(&arrivals[node], 1u) == 0) {
            return;
        }
        __threadfence();
        /* Read past the cache: the other child's box was written by another thread. */
        const volatile Node *both = &nodes[node];
        lo = make_float3(fminf(both->left_lo.x, both->right_lo.x),
                         fminf(both->left_lo.y, both->right_lo.y),
                         fminf(both->left_lo.z, both->right_lo.z));
        hi = make_float3(fmaxf(both->left_hi.x, both->right_hi.x),
                         fmaxf(both->left_hi.y, both->right_hi.y),
                         fmaxf(both->left_hi.z, both->right_hi.z));
        child = node;
        node = node_parent[node];
    }
}

/* The build's working memory on the GPU: the centres' box, the codes and indices before and
 * after the sort, CUB's scratch, and the tree's parents and arrival counters. */
struct build_buffers {
    unsigned int *bounds;                /* 6: the centres' box as ordered bits */
    unsigned long long *codes, *sorted_codes; /* n each */
    int *indices;                        /* n: 0 .. n-1, sorted into scene.order */
    void *sort_scratch;
    size_t sort_scratch_bytes;
    int *node_parent, *leaf_parent;      /* n - 1 and n */
    unsigned int *arrivals;              /* n - 1 */
};
