/* How the build makes a node: a cluster, and two clusters merged into a node. */

/* A cluster of the build: a sphere's leaf (id ~c) or a node made so far (id >= 0), and its box. */
struct __align__(16) Cluster {
    float3 lo;
    int id;
    float3 hi;
    int unused;
};

/* A cluster's box as a node stores it: widened by the cone test's ray-independent margin, then
 * rounded outward to halves, low planes down and high planes up, packed two a word. The cluster
 * keeps its exact box, so that unions are not widened twice. */
__device__ inline void widened_box(const Cluster *cluster, unsigned int packed[3])
{
    struct spec_bvh_node box;
    box.lo = spec_v3(cluster->lo.x, cluster->lo.y, cluster->lo.z);
    box.hi = spec_v3(cluster->hi.x, cluster->hi.y, cluster->hi.z);
    box.first = box.count = 0;
    box = spec_bvh_cone_widen_box(&box);
    const unsigned int planes[6] = {
        __half_as_ushort(__float2half_rd(box.lo.x)), __half_as_ushort(__float2half_rd(box.lo.y)),
        __half_as_ushort(__float2half_rd(box.lo.z)), __half_as_ushort(__float2half_ru(box.hi.x)),
        __half_as_ushort(__float2half_ru(box.hi.y)), __half_as_ushort(__float2half_ru(box.hi.z))};
    for (int w = 0; w < 3; w++) {
        packed[w] = planes[2 * w] | planes[2 * w + 1] << 16;
    }
}

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children, with their boxes widened (the walk reads children's boxes in the
 * parent), and the first cluster's slot becomes the node, in the union box. Nodes are numbered
 * down from n - 2, so the last, the root, is node 0. Returns whether slot i stays (the second of
 * a pair does not). */
__device__ inline bool merge_pair(Cluster *clusters, const int *nearest, int i, Node *nodes,
                                  unsigned int *merges, int n)
{
    const int j = nearest[i];
    if (j < 0 || nearest[j] != i) {
        return true;
    }
    if (j < i) {
        return false; /* merged by j */
    }
    const Cluster a = clusters[i], b = clusters[j];
    const int index = n - 2 - (int)atomicAdd(merges, 1u);
    Node *node = &nodes[index];
    node->left = a.id;
    widened_box(&a, node->left_box);
    node->right = b.id;
    widened_box(&b, node->right_box);
    clusters[i].lo = make_float3(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y), fminf(a.lo.z, b.lo.z));
    clusters[i].hi = make_float3(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y), fmaxf(a.hi.z, b.hi.z));
    clusters[i].id = index;
    return true;
}
