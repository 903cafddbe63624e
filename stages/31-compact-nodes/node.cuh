/* The tree's node: its layout in memory, as the build writes it and the walk reads it. */

/* An inner node of the tree: its children, each an inner node (c >= 0) or the leaf of sorted
 * sphere ~c (c < 0), and their boxes widened for the cone test (spec_bvh_cone_widen_box) then
 * rounded outward to halves: 32 bytes, one sector, a 16-byte quarter a child (its index, then
 * its box's low x, y, z and high x, y, z, two halves a word, the first in the low bits). The
 * root is node 0 (or, for a single sphere, the leaf ~0). */
struct __align__(32) Node {
    int left;
    unsigned int left_box[3];
    int right;
    unsigned int right_box[3];
};

/* An inner node's two children, each with its packed box: one 16-byte load a child (its
 * quarter of the node's one sector), through the read-only cache. */
__device__ inline void load_children(const Node *nodes, int index, int children[2],
                                     uint3 boxes[2])
{
    const uint4 *quarters = (const uint4 *)&nodes[index];
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const uint4 quarter = __ldg(&quarters[k]);
        children[k] = (int)quarter.x;
        boxes[k] = make_uint3(quarter.y, quarter.z, quarter.w);
    }
}

/* A half's bits (the low or the high 16 of a word) as a float: exact, every half is a float. */
__device__ inline float half_bits_to_float(unsigned int bits)
{
    return __half2float(__ushort_as_half((unsigned short)(bits & 0xffffu)));
}

/* A child's box from its three words: six halves widened to floats, where it is tested. */
__device__ inline void unpack_child_box(uint3 packed, struct spec_bvh_node *box)
{
    box->lo = spec_v3(half_bits_to_float(packed.x), half_bits_to_float(packed.x >> 16),
                      half_bits_to_float(packed.y));
    box->hi = spec_v3(half_bits_to_float(packed.y >> 16), half_bits_to_float(packed.z),
                      half_bits_to_float(packed.z >> 16));
}
