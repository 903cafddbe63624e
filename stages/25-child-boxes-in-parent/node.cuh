/* The tree's node: its layout in memory, as the build writes it and the walk reads it. */

/* An inner node of the tree: its children, each an inner node (c >= 0) or the leaf of sorted
 * sphere ~c (c < 0), and their boxes: 64 bytes on a 16-byte boundary, two 32-byte sectors, the
 * left child's box and both indices in the first. The root is node 0 (or, for a single sphere,
 * the leaf ~0). */
struct __align__(16) Node {
    float3 left_lo;
    int left;
    float3 left_hi;
    int right;
    float3 right_lo;
    int unused_1;
    float3 right_hi;
    int unused_2;
};

/* An inner node's two children (ints in its first two 16-byte quarters), through the read-only
 * cache. */
__device__ inline void load_children(const Node *nodes, int index, int children[2])
{
    children[0] = __ldg(&nodes[index].left);
    children[1] = __ldg(&nodes[index].right);
}

/* Child k's box, held by its parent: quarters 2k and 2k + 1 of the node, two 16-byte loads (the
 * same sectors as the children's indices, so from the cache). Loaded where it is tested, so that
 * no box is kept alive beside another (the whole node held at once spills registers). */
__device__ inline void load_child_box(const Node *nodes, int index, int k, struct spec_bvh_node *box)
{
    const float4 *quarters = (const float4 *)&nodes[index];
    const float4 lo = __ldg(&quarters[2 * k]), hi = __ldg(&quarters[2 * k + 1]);
    box->lo = spec_v3(lo.x, lo.y, lo.z);
    box->hi = spec_v3(hi.x, hi.y, hi.z);
}
