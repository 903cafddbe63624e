/* The tree four wide: a wide node for each inner node of the binary tree, made from it on the GPU
 * after the build (widen_kernel). */

/* At most four children a node, each a child of the binary tree as stage 31's node stores it: its
 * index (an inner node c >= 0, whose wide node is wide[c], or the leaf ~c of sorted sphere c) and
 * its box as six halves in three words. 64 bytes, two sectors, a child one 16-byte load. A slot
 * without a child holds NO_CHILD. */
#define WIDE 4
#define NO_CHILD INT_MIN
struct __align__(64) WideNode {
    uint4 child[WIDE];
};

/* The surface area (half of it) of a packed box: what a ray pays to enter it, to choose which
 * child to open. */
__device__ inline float packed_box_area(unsigned int x, unsigned int y, unsigned int z)
{
    struct spec_bvh_node box;
    unpack_child_box(make_uint3(x, y, z), &box);
    const float dx = box.hi.x - box.lo.x, dy = box.hi.y - box.lo.y, dz = box.hi.z - box.lo.z;
    const float area = dx * dy + dy * dz + dz * dx;
    return area == area ? area : INFINITY;
}

/* Inner node i's wide node: its two children, then, while fewer than four, the inner child with
 * the largest box replaced by its own two children (the collapse of Ylitie, Karras and Laine,
 * 2017, greedy by surface area). A leaf stays a child. One thread a node; each reads the binary
 * nodes only, so the wide nodes can be made in any order. */
__global__ void widen_kernel(const Node *nodes, WideNode *wide, int inner_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= inner_count) {
        return;
    }
    const uint4 *quarters = (const uint4 *)nodes;
    uint4 child[WIDE];
    child[0] = quarters[2 * i];
    child[1] = quarters[2 * i + 1];
    int count = 2;
    while (count < WIDE) {
        int widest = -1;
        float widest_area = -1.0f;
        for (int k = 0; k < count; k++) {
            if ((int)child[k].x >= 0) {
                const float area = packed_box_area(child[k].y, child[k].z, child[k].w);
                if (area > widest_area) {
                    widest_area = area;
                    widest = k;
                }
            }
        }
        if (widest < 0) {
            break;
        }
        const int opened = (int)child[widest].x;
        child[widest] = quarters[2 * opened];
        child[count++] = quarters[2 * opened + 1];
    }
    for (int k = count; k < WIDE; k++) {
        child[k] = make_uint4((unsigned int)NO_CHILD, 0u, 0u, 0u);
    }
    for (int k = 0; k < WIDE; k++) {
        wide[i].child[k] = child[k];
    }
}
