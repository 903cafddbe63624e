/* The scene on the GPU (spheres, tree), and the loop over every sphere that ends deep walks. */

/* What the kernel reads of the scene, all in global memory: the spheres, two 16-byte views of
 * them (centre and radius squared; oc and k from the camera), and the hierarchy (inner nodes,
 * the sphere indices in Morton order: leaf ~c is sphere order[c], and the two views copied into
 * that order: leaf ~c's are leaf_geometry[c] and leaf_from_camera[c]). */
struct Scene {
    const Sphere *spheres;
    const float4 *geometry;    /* per sphere: centre x, y, z and the radius squared */
    const float4 *from_camera; /* per sphere: oc = camera - centre, and k = oc.oc - r^2 */
    const Node *nodes;
    const WideNode *wide; /* wide[c]: inner node c's children four wide (wide_node.cuh) */
    const int *order;
    const float4 *leaf_geometry, *leaf_from_camera; /* per leaf, in tree order */
    int root; /* 0, or ~0 for a scene of one sphere */
    int sphere_count;
};

/* What the walk would find, from where a walk whose stack is full stopped (its best t and sphere
 * so far): SPEC.md's loop over every sphere in file order, which meets ties in index order. Not
 * inlined: it is rarely called, and the walk keeps its registers. */
__device__ __noinline__ int every_sphere(const Scene *scene, enum search what, float3 origin,
                                         float3 direction, float a, float best, int hit,
                                         float *distance)
{
    for (int s = 0; s < scene->sphere_count; s++) {
        float3 oc;
        float c, t;
        if (what == NEAREST_FROM_CAMERA) {
            const float4 from_camera = __ldg(&scene->from_camera[s]);
            oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
            c = from_camera.w;
        } else {
            oc = from_sphere(origin, __ldg(&scene->geometry[s]), &c);
        }
        if (!has_intersection(oc, c, direction, a, &t)) {
            continue;
        }
        if (what == ANY_BLOCKER) {
            if (t > 1e-6f) {
                *distance = t;
                return s;
            }
        } else if (t < best || (t == best && hit >= 0 && s < hit)) {
            best = t;
            hit = s;
        }
    }
    *distance = best;
    return hit;
}
