/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a node's common prefix is longer than its parent's, and prefixes run to 63
 * bits of code and, between equal codes, 17 bits of index (100,000 < 2^17): at most 81 levels,
 * and a depth-first walk holds at most one entry a level, plus one. */
#define TREE_STACK 82

/* Walks the tree for a ray (direction d, a = d.d, inverse = 1 / d per component) with a stack of
 * children: an inner node whose box the ray cannot enter before the best t so far is skipped with
 * everything inside (spec_bvh_may_hit widens each box by what rounding can reach: the image's bits
 * rest on it, common/raytrace/spec_bvh.h); a leaf's sphere is tested. The nearest hit is the
 * smallest (t, index), as SPEC.md's loop in file order finds it; a blocker ends the walk. Returns
 * the sphere (or -1) and its t in *distance. Inlined with `what` known, each call keeps only its
 * own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    const float3 inverse = make_float3(1.0f / direction.x, 1.0f / direction.y, 1.0f / direction.z);
    const struct spec_vec3 from = spec_v3(origin.x, origin.y, origin.z);
    const struct spec_vec3 per_unit = spec_v3(inverse.x, inverse.y, inverse.z);
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    int hit = -1;
    int stack[TREE_STACK];
    int top = 0;
    stack[top++] = scene->root;
    while (top > 0) {
        const int child = stack[--top];
        if (child >= 0) {
            const Node node = scene->nodes[child];
            struct spec_bvh_node box;
            box.lo = spec_v3(node.lo.x, node.lo.y, node.lo.z);
            box.hi = spec_v3(node.hi.x, node.hi.y, node.hi.z);
            if (spec_bvh_may_hit(&box, from, per_unit, best)) {
                stack[top++] = node.right;
                stack[top++] = node.left;
            }
            continue;
        }
        const int s = __ldg(&scene->order[~child]);
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
