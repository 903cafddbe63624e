/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a depth-first walk four wide holds at most three pending children a level. A
 * clustered tree of random spheres is about 2.5 log2(n) binary levels deep (about 45 for
 * 100,000), some 25 four wide; a deeper walk goes as far as the stack allows, then is finished by
 * the loop over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 96
#endif

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct Pending {
    int node;
    float enter;
};

/* The ray's cone for a walk of hits up to t_max: spec_bvh_cone_for_walk with the root's two
 * children's boxes in place of the root's box. Only a ray with an axis it runs nearly parallel to
 * (|d| at most the slope: the cone drops the axis, its scales 0) needs the bound, up to where the
 * ray's cone leaves the later of them (or t_max), so that the axis culls too; for every other ray
 * the bound changes nothing, and the cone is made once. Where an axis gives no bound (NaN) there
 * is none but t_max. A root that is a leaf has no boxes to cull. */
__device__ inline struct spec_bvh_cone cone_of_walk(const Scene *scene,
                                                    struct spec_vec3 origin,
                                                    struct spec_vec3 direction, float t_max)
{
    const struct spec_bvh_cone unbounded = spec_bvh_cone_of_ray(origin, direction);
    const bool every_axis_bounds = unbounded.enter_scale[0] != 0.0f &&
                                   unbounded.enter_scale[1] != 0.0f &&
                                   unbounded.enter_scale[2] != 0.0f;
    if (scene->root < 0 || every_axis_bounds) {
        return unbounded;
    }
    int children[2];
    uint3 boxes[2];
    load_children(scene->nodes, scene->root, children, boxes);
    struct spec_bvh_node box;
    unpack_child_box(boxes[0], &box);
    const float leave_left = spec_bvh_cone_leave(&box, &unbounded);
    unpack_child_box(boxes[1], &box);
    const float leave_right = spec_bvh_cone_leave(&box, &unbounded);
    const float leave = leave_left != leave_left || leave_right != leave_right
                            ? INFINITY
                            : fmaxf(leave_left, leave_right);
    return spec_bvh_cone_of_ray_sloped(origin, direction, SPEC_BVH_CONE_SLOPE,
                                       fminf(t_max, leave));
}

/* Walks the tree four wide for a ray (direction d, a = d.d): at a node, tests its up to four
 * children's boxes, held by the node, for where the ray's cone enters them, and the sphere of a
 * leaf whose box it enters (lean_cone_entry, spec_bvh_cone_entry's answer, on the box widened at
 * build time: the image's bits rest on the two, common/raytrace/spec_bvh.h); goes on to the nearest entered child, pushing the others
 * farthest first, or, with none to take, to the nearest pending child the ray enters at or before
 * the best t so far. The nearest hit is the smallest (t, index), as SPEC.md's loop in file order
 * finds it; a blocker ends the walk. Returns the sphere (or -1) and its t in *distance. Inlined
 * with `what` known, each call keeps only its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    const struct plane_picks picks = plane_picks_of_cone(&cone);
    int hit = -1;
    Pending stack[TREE_STACK];
    int top = 0;
    /* The node whose children are tested next: the root, or for a sphere alone its leaf, in a box
     * of all space (halves at -infinity and +infinity), which every ray enters. */
    uint4 child[WIDE];
    child[0] = make_uint4((unsigned int)scene->root, 0xfc00fc00u, 0x7c00fc00u, 0x7c007c00u);
#pragma unroll
    for (int k = 1; k < WIDE; k++) {
        child[k] = make_uint4((unsigned int)NO_CHILD, 0u, 0u, 0u);
    }
    if (scene->root >= 0) {
        const uint4 *quarters = (const uint4 *)&scene->wide[scene->root];
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            child[k] = __ldg(&quarters[k]);
        }
    }
    for (;;) {
        /* Every child's box, a leaf's too, tested without a branch (stage 33); a slot without a
         * child is entered nowhere. The boxes first, then the spheres: a box's six floats are not
         * kept alive through a sphere's test. */
        float enter[WIDE];
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            const float entry = lean_cone_entry(make_uint3(child[k].y, child[k].z, child[k].w),
                                                &cone, picks, best);
            enter[k] = (int)child[k].x != NO_CHILD ? entry : INFINITY;
        }
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            const int c = (int)child[k].x;
            if (c >= 0 || enter[k] == INFINITY) {
                continue;
            }
            float3 oc;
            float cc, t;
            if (what == NEAREST_FROM_CAMERA) {
                const float4 from_camera = __ldg(&scene->leaf_from_camera[~c]);
                oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                cc = from_camera.w;
            } else {
                oc = from_sphere(origin, __ldg(&scene->leaf_geometry[~c]), &cc);
            }
            if (!has_intersection(oc, cc, direction, a, &t)) {
                continue;
            }
            if (what == ANY_BLOCKER) {
                if (t > 1e-6f) {
                    *distance = t;
                    return __ldg(&scene->order[~c]);
                }
            } else if (t <= best) {
                /* Only now the sphere's index: it decides a tie. */
                const int s = __ldg(&scene->order[~c]);
                if (t < best || (hit >= 0 && s < hit)) {
                    best = t;
                    hit = s;
                }
            }
        }
        /* A tree deeper than the stack: the rest of the answer from every sphere. */
        if (top + WIDE - 1 > TREE_STACK) {
            return every_sphere(scene, what, origin, direction, a, best, hit, distance);
        }
        /* The entered inner children in the order the ray enters them (a sorting network of
         * five exchanges, in registers); one entered past the best t (a sphere of this node came
         * nearer) is dropped with the rest. The nearest is taken next, the others pushed, the
         * farthest first. */
        int node[WIDE];
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            node[k] = (int)child[k].x;
            enter[k] = node[k] >= 0 && !(enter[k] > best) ? enter[k] : INFINITY;
        }
#define EXCHANGE(i, j)                                                                         \
    if (enter[j] < enter[i]) {                                                                 \
        const float e = enter[i];                                                              \
        enter[i] = enter[j];                                                                   \
        enter[j] = e;                                                                          \
        const int n = node[i];                                                                 \
        node[i] = node[j];                                                                     \
        node[j] = n;                                                                           \
    }
        EXCHANGE(0, 1)
        EXCHANGE(2, 3)
        EXCHANGE(0, 2)
        EXCHANGE(1, 3)
        EXCHANGE(1, 2)
#undef EXCHANGE
        int next = -1;
        if (enter[0] != INFINITY) {
#pragma unroll
            for (int k = WIDE - 1; k >= 1; k--) {
                if (enter[k] != INFINITY) {
                    stack[top].node = node[k];
                    stack[top++].enter = enter[k];
                }
            }
            next = node[0];
        } else {
            /* The nearest pending child the ray still enters before the best t. */
            while (top > 0) {
                const Pending pending = stack[--top];
                if (!(pending.enter > best)) {
                    next = pending.node;
                    break;
                }
            }
        }
        if (next < 0) {
            break;
        }
        const uint4 *quarters = (const uint4 *)&scene->wide[next];
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            child[k] = __ldg(&quarters[k]);
        }
    }
    *distance = best;
    return hit;
}
