/* The threads per block of every kernel, the most spheres the stage holds (stage_info.h), and
 * where the kernels find the scene and its tree in global memory. */

#define BLOCK_THREADS 128

const struct stage_info stage_info = {
    PT_SCENE_MAX_SPHERES,
    "the scene format",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

/* A child of an inner node: an inner node (index >= 0) or the leaf of sorted sphere ~index
 * (index < 0), and its widened box rounded outward to halves (low x, y, z, then high x, y, z,
 * two halves a word, the first in the low bits): 16 bytes, one load. */
struct __align__(16) tree_child {
    int index;
    unsigned box[3];
};

/* An inner node of the tree: its two children with their boxes, 32 bytes, one sector. The root
 * is node 0 (or, for a single sphere, the leaf ~0); its own box is nowhere, its children's are
 * in it. */
struct __align__(32) tree_node {
    struct tree_child left, right;
};

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * tree (inner nodes, and the sphere indices in Morton order: leaf ~c is sphere order[c]). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct tree_node *nodes;
    const int *order;
    int root; /* 0, or ~0 for a scene of one sphere */
    int sphere_count;
};
