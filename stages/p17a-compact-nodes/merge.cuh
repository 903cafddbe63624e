/* How the build makes a node: a cluster, and two clusters merged into a node. */

/* A cluster of the build: a sphere's leaf (id ~c, c its place in Morton order) or a node made so
 * far (id >= 0), and its box. */
struct cluster {
    struct spec_vec3 lo;
    int id;
    struct spec_vec3 hi;
    int unused;
};

/* A cluster's box as a node stores it: widened by the cone test's ray-independent margin
 * (spec_bvh_cone_widen_box), then rounded outward to halves, low planes down and high planes up,
 * packed two a word. A plane beyond the halves' range becomes an infinity on its outer side
 * only. The cluster keeps its exact box, so that unions are not widened twice. */
__device__ static void widen_child_box(const struct cluster *cluster, struct tree_child *child)
{
    struct spec_bvh_node box;
    box.lo = cluster->lo;
    box.hi = cluster->hi;
    box.first = box.count = 0;
    box = spec_bvh_cone_widen_box(&box);
    unsigned planes[6] = {
        __half_as_ushort(__float2half_rd(box.lo.x)), __half_as_ushort(__float2half_rd(box.lo.y)),
        __half_as_ushort(__float2half_rd(box.lo.z)), __half_as_ushort(__float2half_ru(box.hi.x)),
        __half_as_ushort(__float2half_ru(box.hi.y)), __half_as_ushort(__float2half_ru(box.hi.z))};
    for (int w = 0; w < 3; ++w)
        child->box[w] = planes[2 * w] | planes[2 * w + 1] << 16;
}

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children, with their boxes widened and packed (the walk tests children's boxes at
 * the parent), and the first cluster's slot becomes the node, in the union box. Nodes are numbered
 * down from n - 2, so the last, the root, is node 0. Returns whether slot i stays (the second of a
 * pair does not). */
__device__ static int merge_pair(struct cluster *clusters, const int *nearest, int i,
                                 struct tree_node *nodes, unsigned *merges, int n)
{
    int j = nearest[i];
    if (j < 0 || nearest[j] != i)
        return 1;
    if (j < i)
        return 0; /* merged by j */
    struct cluster a = clusters[i], b = clusters[j];
    int index = n - 2 - (int)atomicAdd(merges, 1u);
    struct spec_vec3 lo = spec_v3(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y),
                                  fminf(a.lo.z, b.lo.z));
    struct spec_vec3 hi = spec_v3(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y),
                                  fmaxf(a.hi.z, b.hi.z));
    struct tree_node *node = &nodes[index];
    widen_child_box(&a, &node->left);
    node->left.index = a.id;
    widen_child_box(&b, &node->right);
    node->right.index = b.id;
    clusters[i].lo = lo;
    clusters[i].hi = hi;
    clusters[i].id = index;
    return 1;
}
