/* How the build makes a node: a cluster, and two clusters merged into a node. */

/* A cluster of the build: a sphere's leaf (id ~c) or a node made so far (id >= 0), and its box. */
struct __align__(16) Cluster {
    float3 lo;
    int id;
    float3 hi;
    int unused;
};

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children, with their boxes (the walk reads children's boxes in the parent), and
 * the first cluster's slot becomes the node, in the union box. Nodes are numbered down from
 * n - 2, so the last, the root, is node 0. Returns whether slot i stays (the second of a pair
 * does not). */
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
    node->left_lo = a.lo;
    node->left_hi = a.hi;
    node->right = b.id;
    node->right_lo = b.lo;
    node->right_hi = b.hi;
    clusters[i].lo = make_float3(fminf(a.lo.x, b.lo.x), fminf(a.lo.y, b.lo.y), fminf(a.lo.z, b.lo.z));
    clusters[i].hi = make_float3(fmaxf(a.hi.x, b.hi.x), fmaxf(a.hi.y, b.hi.y), fmaxf(a.hi.z, b.hi.z));
    clusters[i].id = index;
    return true;
}
