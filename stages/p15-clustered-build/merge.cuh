/* How the build makes a node: a cluster, and two clusters merged into a node. */

/* A cluster of the build: a sphere's leaf (id ~c, c its place in Morton order) or a node made so
 * far (id >= 0), and its box. */
struct cluster {
    struct spec_vec3 lo;
    int id;
    struct spec_vec3 hi;
    int unused;
};

/* Two clusters that picked each other become a node, made by the first of them: the node takes
 * both as its children and their union as its box, and the first cluster's slot becomes the
 * node. Nodes are numbered down from n - 2, so the last, the root, is node 0. Returns whether
 * slot i stays (the second of a pair does not). */
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
    node->lo = lo;
    node->left = a.id;
    node->hi = hi;
    node->right = b.id;
    clusters[i].lo = lo;
    clusters[i].hi = hi;
    clusters[i].id = index;
    return 1;
}
