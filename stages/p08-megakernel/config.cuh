/* The threads per block of every kernel, the most spheres the stage holds (stage_info.h), and
 * the spheres and their materials in constant memory. */

#define BLOCK_THREADS 128
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */

const struct stage_info stage_info = {
    MAX_SPHERES,
    "its constant-memory arrays",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

__constant__ struct pt_sphere c_spheres[MAX_SPHERES];
__constant__ struct pt_material c_materials[MAX_SPHERES];
