/* The tree's nodes laid out in depth-first order, after the build: a node's first child right
 * behind it in memory, its second behind the first child's whole subtree. */

/* The layout's working memory on the GPU, one entry an inner node (n - 1), allocated with the
 * tree. */
struct layout_buffers {
    int *parent;            /* the parent p of inner node i as 2p, or 2p + 1 for a second child;
                               -1 for the root */
    int *size;              /* the inner nodes of i's subtree, i included */
    unsigned int *arrivals; /* the inner children of i whose subtree is counted */
    int *place;             /* i's place in depth-first order */
    Node *placed;           /* the nodes in that order, before they are copied back */
};
static struct layout_buffers layout;

/* Each inner node tells its inner children who their parent is. */
__global__ void parent_kernel(const Node *nodes, int *parent, int inner_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner_count) {
        return;
    }
    if (i == 0) {
        parent[0] = -1;
    }
    const Node node = nodes[i];
    if (node.left >= 0) {
        parent[node.left] = 2 * i;
    }
    if (node.right >= 0) {
        parent[node.right] = 2 * i + 1;
    }
}

/* The size of every subtree, bottom-up: a node whose children are both leaves starts a climb;
 * at each parent the climb of its last inner child to arrive counts it and goes on (the others
 * stop), as stage 23's fit pass made boxes. The sizes of other threads' subtrees are read past
 * L1 (volatile), after their writers' fences. */
__global__ void size_kernel(const Node *nodes, const int *parent, volatile int *size,
                            unsigned int *arrivals, int inner_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner_count || nodes[i].left >= 0 || nodes[i].right >= 0) {
        return;
    }
    int node = i;
    size[node] = 1;
    while (parent[node] >= 0) {
        const int up = parent[node] >> 1;
        const Node above = nodes[up];
        const unsigned int inner_children = (above.left >= 0) + (above.right >= 0);
        __threadfence();
        if (atomicAdd(&arrivals[up], 1u) + 1 < inner_children) {
            return;
        }
        size[up] = 1 + (above.left >= 0 ? size[above.left] : 0) +
                   (above.right >= 0 ? size[above.right] : 0);
        node = up;
    }
}

/* Each inner node's place in depth-first order, first children first: one step for each node on
 * its way up to the root, and for each step from a second child, the first child's subtree. */
__global__ void place_kernel(const Node *nodes, const int *parent, const int *size, int *place,
                             int inner_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner_count) {
        return;
    }
    int at = 0;
    for (int node = i; parent[node] >= 0; node = parent[node] >> 1) {
        at += 1;
        if (parent[node] & 1) {
            const int first = nodes[parent[node] >> 1].left;
            at += first >= 0 ? size[first] : 0;
        }
    }
    place[i] = at;
}

/* Each inner node copied to its place, its inner children renamed by theirs (a leaf keeps its
 * name, ~c). */
__global__ void move_kernel(const Node *nodes, const int *place, Node *placed, int inner_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner_count) {
        return;
    }
    Node node = nodes[i];
    node.left = node.left >= 0 ? place[node.left] : node.left;
    node.right = node.right >= 0 ? place[node.right] : node.right;
    placed[place[i]] = node;
}

/* Lays the built tree out depth-first: four passes over the inner nodes on the default stream,
 * then the nodes copied back where the walk reads them. A tree of one sphere has no inner node. */
static void lay_out_depth_first(const struct frame_resources *frame)
{
    const int inner_count = frame->sphere_count - 1, threads = 256;
    if (inner_count < 1) {
        return;
    }
    const int blocks = (inner_count + threads - 1) / threads;
    Node *nodes = (Node *)frame->scene.nodes;
    CUDA_CHECK(cudaMemsetAsync(layout.arrivals, 0, inner_count * sizeof(unsigned int), 0));
    parent_kernel<<<blocks, threads>>>(nodes, layout.parent, inner_count);
    CUDA_CHECK_LAUNCH("parent_kernel");
    size_kernel<<<blocks, threads>>>(nodes, layout.parent, layout.size, layout.arrivals,
                                     inner_count);
    CUDA_CHECK_LAUNCH("size_kernel");
    place_kernel<<<blocks, threads>>>(nodes, layout.parent, layout.size, layout.place,
                                      inner_count);
    CUDA_CHECK_LAUNCH("place_kernel");
    move_kernel<<<blocks, threads>>>(nodes, layout.place, layout.placed, inner_count);
    CUDA_CHECK_LAUNCH("move_kernel");
    CUDA_CHECK(cudaMemcpyAsync(nodes, layout.placed, inner_count * sizeof(Node),
                               cudaMemcpyDeviceToDevice, 0));
}

static void allocate_layout(size_t inner_count)
{
    inner_count = inner_count > 0 ? inner_count : 1;
    CUDA_CHECK(cudaMalloc((void **)&layout.parent, inner_count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&layout.size, inner_count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&layout.arrivals, inner_count * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&layout.place, inner_count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&layout.placed, inner_count * sizeof(Node)));
}

static void free_layout(void)
{
    CUDA_CHECK(cudaFree(layout.parent));
    CUDA_CHECK(cudaFree(layout.size));
    CUDA_CHECK(cudaFree(layout.arrivals));
    CUDA_CHECK(cudaFree(layout.place));
    CUDA_CHECK(cudaFree(layout.placed));
}
