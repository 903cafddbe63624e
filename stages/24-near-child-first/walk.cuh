/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a node's common prefix is longer than its parent's, and prefixes run to 63
 * bits of code and, between equal codes, 17 bits of index (100,000 < 2^17): at most 81 levels,
 * and a depth-first walk holds at most one pending child a level, plus one. */
#define TREE_STACK 82

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct Pending {
    int node;
    float enter;
};

/* Walks the tree for a ray (direction d, a = d.d, inverse = 1 / d per component): takes the
 * nearest pending child, drops it if the ray enters it past the best t so far, else tests its two
 * children: a leaf's sphere at once, an inner node's box for its entry (spec_bvh_entry widens each
 * box by what rounding can reach: the image's bits rest on it, common/raytrace/spec_bvh.h); the
 * entered ones are pushed, the farther first. The nearest hit is the smallest (t, index), as
 * SPEC.md's loop in file order finds it; a blocker ends the walk. Returns the sphere (or -1) and
 * its t in *distance. Inlined with `what` known, each call keeps only its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    const float3 inverse = make_float3(1.0f / direction.x, 1.0f / direction.y, 1.0f / direction.z);
    const struct spec_vec3 from = spec_v3(origin.x, origin.y, origin.z);
    const struct spec_vec3 per_unit = spec_v3(inverse.x, inverse.y, inverse.z);
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    int hit = -1;
    Pending stack[TREE_STACK];
    int top = 0;
    /* The root as the child of a node above it: a sphere alone, or an inner node. */
    int children[2] = {scene->root, -1};
    int child_count = 1;
    for (;;) {
        float enter[2] = {INFINITY, INFINITY};
        for (int k = 0; k < child_count; k++) {
            const int child = children[k];
            if (child >= 0) {
                const Node node = scene->nodes[child];
                struct spec_bvh_node box;
                box.lo = spec_v3(node.lo.x, node.lo.y, node.lo.z);
                box.hi = spec_v3(node.hi.x, node.hi.y, node.hi.z);
                enter[k] = spec_bvh_entry(&box, from, per_unit, best);
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
        /* The farther entered child first on the stack, so that the nearer is taken next. */
        const int near = enter[1] < enter[0] ? 1 : 0, far = 1 - near;
        if (enter[far] != INFINITY) {
            stack[top].node = children[far];
            stack[top++].enter = enter[far];
        }
        if (enter[near] != INFINITY) {
            stack[top].node = children[near];
            stack[top++].enter = enter[near];
        }
        /* The nearest pending child the ray still enters before the best t. */
        int next = -1;
        while (top > 0) {
            const Pending pending = stack[--top];
            if (!(pending.enter > best)) {
                next = pending.node;
                break;
            }
        }
        if (next < 0) {
            break;
        }
        const Node node = scene->nodes[next];
        children[0] = node.left;
        children[1] = node.right;
        child_count = 2;
    }
    *distance = best;
    return hit;
}
