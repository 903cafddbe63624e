/* The scene on the GPU: the spheres and the tree in global memory. */
#include "raytrace/bvh.h"

/* What the kernel reads of the scene, all in global memory: the spheres, two 16-byte views of
 * them (centre and radius squared; oc and k from the camera), and the hierarchy (nodes, and the
 * sphere indices leaf after leaf). */
struct Scene {
    const Sphere *spheres;
    const float4 *geometry;    /* per sphere: centre x, y, z and the radius squared */
    const float4 *from_camera; /* per sphere: oc = camera - centre, and k = oc.oc - r^2 */
    const struct spec_bvh_node *nodes;
    const int *order;
};

/* What the tree's build works in, kept with the frame (frame.cuh): here the hierarchy as the host
 * builds it (common/raytrace/bvh.c), its nodes and the spheres' order leaf after leaf. */
struct build_buffers {
    struct bvh bvh;
};
