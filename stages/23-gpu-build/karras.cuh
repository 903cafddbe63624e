/* Karras' radix tree over the sorted codes: a node's range and split from common prefixes. */

/* The length of the common prefix of sorted keys i and j, the index breaking ties between equal
 * codes (so every key differs); -1 for j outside 0..n-1. */
__device__ inline int common_prefix(const unsigned long long *codes, int n, int i, int j)
{
    if (j < 0 || j >= n) {
        return -1;
    }
    const unsigned long long a = codes[i], b = codes[j];
    return a != b ? __clzll(a ^ b) : 64 + __clz((unsigned int)i ^ (unsigned int)j);
}

/* Karras' construction, one thread per inner node i: the direction its range grows from i, the
 * range's other end, and the split where the prefix changes; its children are the nodes (or
 * leaves) on either side of the split. Each child's parent is noted for the fit. */
__global__ void karras_kernel(const unsigned long long *codes, int n, Node *nodes, int *node_parent,
                              int *leaf_parent)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1) {
        return;
    }
    if (i == 0) {
        node_parent[0] = -1; /* the root: where the fit stops */
    }
    const int d = common_prefix(codes, n, i, i + 1) - common_prefix(codes, n, i, i - 1) > 0 ? 1 : -1;
    const int delta_min = common_prefix(codes, n, i, i - d);
    int length_max = 2;
    while (common_prefix(codes, n, i, i + length_max * d) > delta_min) {
        length_max *= 2;
    }
    int length = 0;
    for (int step = length_max / 2; step >= 1; step /= 2) {
        if (common_prefix(codes, n, i, i + (length + step) * d) > delta_min) {
            length += step;
        }
    }
    const int j = i + length * d;
    const int delta_node = common_prefix(codes, n, i, j);
    int split = 0;
    for (int step = (length + 1) / 2;; step = (step + 1) / 2) {
        if (split + step < length && common_prefix(codes, n, i, i + (split + step) * d) > delta_node) {
            split += step;
        }
        if (step == 1) {
            break;
        }
    }
    const int gamma = i + split * d + min(d, 0);
    const int first = min(i, j), last = max(i, j);
    const int left = first == gamma ? ~gamma : gamma;
    const int right = last == gamma + 1 ? ~(gamma + 1) : gamma + 1;
    nodes[i].left = left;
    nodes[i].right = right;
    if (left < 0) {
        leaf_parent[~left] = i;
    } else {
        node_parent[left] = i;
    }
    if (right < 0) {
        leaf_parent[~right] = i;
    } else {
        node_parent[right] = i;
    }
}
