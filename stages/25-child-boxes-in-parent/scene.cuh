/* The scene on the GPU: the spheres and the tree in global memory. */

/* What the kernel reads of the scene, all in global memory: the spheres, two 16-byte views of
 * them (centre and radius squared; oc and k from the camera), and the hierarchy (inner nodes,
 * the sphere indices in Morton order: leaf ~c is sphere order[c], and the two views copied into
 * that order: leaf ~c's are leaf_geometry[c] and leaf_from_camera[c]). */
struct Scene {
    const Sphere *spheres;
    const float4 *geometry;    /* per sphere: centre x, y, z and the radius squared */
    const float4 *from_camera; /* per sphere: oc = camera - centre, and k = oc.oc - r^2 */
    const Node *nodes;
    const int *order;
    const float4 *leaf_geometry, *leaf_from_camera; /* per leaf, in tree order */
    int root; /* 0, or ~0 for a scene of one sphere */
};
