/* The wide nodes, made from the binary tree after the clustered build. */

/* Appends a child and its box to a wide node being made. */
__device__ inline void add_child(WideNode *wide, int *count, int child, float3 lo, float3 hi)
{
    WideChild *slot = &wide->children[(*count)++];
    slot->lo = lo;
    slot->child = child;
    slot->hi = hi;
    slot->unused = 0;
}

/* Each binary node's wide node, one thread per binary node: its grandchildren with their boxes
 * (read from its children, which hold them), a child that is a leaf kept as it is with its own
 * box, the slots left empty. Every binary node gets one, though the walk reaches only the root's
 * and those of grandchildren; the whole node is written, the empty slots too (initcheck). */
__global__ void wide_kernel(const Node *nodes, WideNode *wide, int inner)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner) {
        return;
    }
    const Node node = nodes[i];
    WideNode made;
    int count = 0;
    if (node.left >= 0) {
        const Node child = nodes[node.left];
        add_child(&made, &count, child.left, child.left_lo, child.left_hi);
        add_child(&made, &count, child.right, child.right_lo, child.right_hi);
    } else {
        add_child(&made, &count, node.left, node.left_lo, node.left_hi);
    }
    if (node.right >= 0) {
        const Node child = nodes[node.right];
        add_child(&made, &count, child.left, child.left_lo, child.left_hi);
        add_child(&made, &count, child.right, child.right_lo, child.right_hi);
    } else {
        add_child(&made, &count, node.right, node.right_lo, node.right_hi);
    }
    while (count < WIDE) {
        const float3 zero = make_float3(0.0f, 0.0f, 0.0f);
        add_child(&made, &count, EMPTY_CHILD, zero, zero);
    }
    wide[i] = made;
}
