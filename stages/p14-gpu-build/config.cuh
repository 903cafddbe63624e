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

/* An inner node of the tree: its box, and its children, each an inner node (c >= 0) or the leaf
 * of sorted sphere ~c (c < 0). The root is node 0 (or, for a single sphere, the leaf ~0). */
struct tree_node {
    struct spec_vec3 lo;
    int left;
    struct spec_vec3 hi;
    int right;
};

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * tree (inner nodes, and the sphere indices in Morton order: leaf ~c is sphere order[c]). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct tree_node *nodes;
    const int *order;
    int root; /* 0, or ~0 for a scene of one sphere */
};
