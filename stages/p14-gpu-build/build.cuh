/* The build's tree over the sorted codes: Karras' radix tree, then the boxes from the leaves up. */

/* The length of the common prefix of sorted keys i and j, the index breaking ties between equal
 * codes (so every key differs); -1 for j outside 0..n-1. */
__device__ static int common_prefix(const unsigned long long *codes, int n, int i, int j)
{
    if (j < 0 || j >= n)
        return -1;
    unsigned long long a = codes[i], b = codes[j];
    return a != b ? __clzll(a ^ b) : 64 + __clz((unsigned)i ^ (unsigned)j);
}

/* Karras' construction, one thread per inner node i: the direction its range grows from i, the
 * range's other end, and the split where the prefix changes; its children are the nodes (or
 * leaves) on either side of the split. Each child's parent is noted for the fit. */
__global__ void karras_kernel(const unsigned long long *codes, int n, struct tree_node *nodes,
                              int *node_parent, int *leaf_parent)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1)
        return;
    if (i == 0)
        node_parent[0] = -1; /* the root: where the fit stops */
    int d = common_prefix(codes, n, i, i + 1) - common_prefix(codes, n, i, i - 1) > 0 ? 1 : -1;
    int delta_min = common_prefix(codes, n, i, i - d);
    int length_max = 2;
    while (common_prefix(codes, n, i, i + length_max * d) > delta_min)
        length_max *= 2;
    int length = 0;
    for (int step = length_max / 2; step >= 1; step /= 2)
        if (common_prefix(codes, n, i, i + (length + step) * d) > delta_min)
            length += step;
    int j = i + length * d;
    int delta_node = common_prefix(codes, n, i, j);
    int split = 0;
    for (int step = (length + 1) / 2;; step = (step + 1) / 2) {
        if (split + step < length && common_prefix(codes, n, i, i + (split + step) * d) > delta_node)
            split += step;
        if (step == 1)
            break;
    }
    int gamma = i + split * d + min(d, 0);
    int first = min(i, j), last = max(i, j);
    int left = first == gamma ? ~gamma : gamma;
    int right = last == gamma + 1 ? ~(gamma + 1) : gamma + 1;
    nodes[i].left = left;
    nodes[i].right = right;
    if (left < 0)
        leaf_parent[~left] = i;
    else
        node_parent[left] = i;
    if (right < 0)
        leaf_parent[~right] = i;
    else
        node_parent[right] = i;
}

/* A child's box: an inner node's, read past the cache (another thread wrote it), or a leaf's
 * sphere's, centre +- radius (as common/raytrace/bvh.c boxes a sphere). */
__device__ static void child_box(const struct scene_on_gpu *scene, const struct tree_node *nodes,
                                 int child, struct spec_vec3 *lo, struct spec_vec3 *hi)
{
    if (child >= 0) {
        const volatile struct tree_node *node = &nodes[child];
        *lo = spec_v3(node->lo.x, node->lo.y, node->lo.z);
        *hi = spec_v3(node->hi.x, node->hi.y, node->hi.z);
        return;
    }
    struct pt_sphere sphere = scene->spheres[scene->order[~child]];
    struct spec_vec3 r = spec_v3(sphere.radius, sphere.radius, sphere.radius);
    *lo = spec_sub(sphere.centre, r);
    *hi = spec_add(sphere.centre, r);
}

/* The boxes from the leaves up, one thread per leaf: at each parent the first thread to arrive
 * (its counter was 0) stops; the second finds both children ready, joins their boxes and climbs
 * on, to the root. */
__global__ void fit_kernel(struct scene_on_gpu scene, struct tree_node *nodes,
                           const int *node_parent, const int *leaf_parent, unsigned *arrivals,
                           int n)
{
    int leaf = blockIdx.x * blockDim.x + threadIdx.x;
    if (leaf >= n || n < 2)
        return;
    int node = leaf_parent[leaf];
    while (node >= 0) {
        __threadfence(); /* this thread's boxes are seen before its arrival */
        if (atomicAdd(&arrivals[node], 1u) == 0)
            return;
        __threadfence();
        struct spec_vec3 left_lo, left_hi, right_lo, right_hi;
        child_box(&scene, nodes, nodes[node].left, &left_lo, &left_hi);
        child_box(&scene, nodes, nodes[node].right, &right_lo, &right_hi);
        nodes[node].lo = spec_v3(fminf(left_lo.x, right_lo.x), fminf(left_lo.y, right_lo.y),
                                 fminf(left_lo.z, right_lo.z));
        nodes[node].hi = spec_v3(fmaxf(left_hi.x, right_hi.x), fmaxf(left_hi.y, right_hi.y),
                                 fmaxf(left_hi.z, right_hi.z));
        node = node_parent[node];
    }
}
