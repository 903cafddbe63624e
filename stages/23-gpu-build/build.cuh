/* The build's passes after the sort, and its working memory on the GPU (build_buffers). */

/* A child's box: an inner node's, read past the cache (another thread wrote it), or a leaf's
 * sphere's, centre +- radius. */
__device__ inline void child_box(const Scene *scene, const Node *nodes, int child, float3 *lo,
                                 float3 *hi)
{
    if (child >= 0) {
        const volatile Node *node = &nodes[child];
        *lo = make_float3(node->lo.x, node->lo.y, node->lo.z);
        *hi = make_float3(node->hi.x, node->hi.y, node->hi.z);
        return;
    }
    const Sphere sphere = scene->spheres[scene->order[~child]];
    const float3 r = make_float3(sphere.radius, sphere.radius, sphere.radius);
    *lo = sub3(sphere.center, r);
    *hi = add3(sphere.center, r);
}

/* The boxes from the leaves up, one thread per leaf: at each parent the first thread to arrive
 * (its counter was 0) stops; the second finds both children ready, joins their boxes and climbs
 * on, to the root. */
__global__ void fit_kernel(Scene scene, Node *nodes, const int *node_parent, const int *leaf_parent,
                           unsigned int *arrivals, int n)
{
    const int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n || n < 2) {
        return;
    }
    int node = leaf_parent[leaf];
    while (node >= 0) {
        __threadfence(); /* this thread's boxes are seen before its arrival */
        if (atomicAdd(&arrivals[node], 1u) == 0) {
            return;
        }
        __threadfence();
        float3 left_lo, left_hi, right_lo, right_hi;
        child_box(&scene, nodes, nodes[node].left, &left_lo, &left_hi);
        child_box(&scene, nodes, nodes[node].right, &right_lo, &right_hi);
        nodes[node].lo = make_float3(fminf(left_lo.x, right_lo.x), fminf(left_lo.y, right_lo.y),
                                     fminf(left_lo.z, right_lo.z));
        nodes[node].hi = make_float3(fmaxf(left_hi.x, right_hi.x), fmaxf(left_hi.y, right_hi.y),
                                     fmaxf(left_hi.z, right_hi.z));
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
