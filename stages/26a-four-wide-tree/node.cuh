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

/* A child of a wide node: an inner node (c >= 0: the wide node of binary node c), the leaf of
 * sorted sphere ~c, or none (EMPTY_CHILD), and its box: one 32-byte sector, the index in the
 * first 16-byte quarter's last word. */
struct __align__(16) WideChild {
    float3 lo;
    int child;
    float3 hi;
    int unused;
};

/* A node of the walk: the grandchildren of a binary node, two to four of them, 128 bytes. */
#define WIDE 4
#define EMPTY_CHILD INT_MIN
struct __align__(16) WideNode {
    WideChild children[WIDE];
};
static_assert(sizeof(WideNode) == 128, "a wide node is four 32-byte sectors");

/* A wide node's four children (the last word of quarters 0, 2, 4 and 6), through the read-only
 * cache. */
__device__ inline void load_children(const WideNode *wide, int index, int children[WIDE])
{
#pragma unroll
    for (int k = 0; k < WIDE; k++) {
        children[k] = __ldg(&wide[index].children[k].child);
    }
}

/* Child k's box, held by its wide node: quarters 2k and 2k + 1, two 16-byte loads (the sector of
 * the child's index, so from the cache). Loaded where it is tested, so that no box is kept alive
 * beside another. */
__device__ inline void load_child_box(const WideNode *wide, int index, int k,
                                      struct spec_bvh_node *box)
{
    const float4 *quarters = (const float4 *)&wide[index];
    const float4 lo = __ldg(&quarters[2 * k]), hi = __ldg(&quarters[2 * k + 1]);
    box->lo = spec_v3(lo.x, lo.y, lo.z);
    box->hi = spec_v3(hi.x, hi.y, hi.z);
}
