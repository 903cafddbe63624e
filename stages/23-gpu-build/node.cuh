/* The tree's node: its layout in memory, as the build writes it and the walk reads it. */

/* An inner node of the tree: its box, and its children, each an inner node (c >= 0) or the leaf
 * of sorted sphere ~c (c < 0). The root is node 0 (or, for a single sphere, the leaf ~0). */
struct Node {
    float3 lo;
    int left;
    float3 hi;
    int right;
};
