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

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * hierarchy (its nodes, and the sphere indices leaf after leaf). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct spec_bvh_node *nodes;
    const int *order;
};
