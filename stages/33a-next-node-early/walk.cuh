/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a depth-first walk holds at most one pending child a level. A
 * clustered tree of random spheres is about 2.5 log2(n) levels deep (about 45 for 100,000); a
 * deeper one is walked as far as the stack allows, then finished by the loop over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
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

/* Walks the tree for a ray (direction d, a = d.d): tests a node's two children's boxes, held by
 * the parent, for where the ray's cone enters them, and the sphere of a leaf whose box it enters
 * (lean_cone_entry, spec_bvh_cone_entry's answer, on the box widened at build time: the image's
 * bits rest on the two, common/raytrace/spec_bvh.h); goes on to the nearer entered child, pushing
 * the farther, or, with none to take, to the nearest pending child the ray enters at or before the
 * best t so far. The nearest hit is the smallest (t, index), as SPEC.md's loop in file order finds
 * it; a blocker ends the walk. Returns the sphere (or -1) and its t in *distance. Inlined with
 * `what` known, each call keeps only its own branches. */
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
    int current = scene->root;
    int children[2] = {scene->root, -1};
    const uint3 all_space = make_uint3(0xfc00fc00u, 0x7c00fc00u, 0x7c007c00u);
    uint3 boxes[2] = {all_space, all_space};
    int child_count = 1;
    if (current >= 0) {
        load_children(scene->nodes, current, children, boxes);
        child_count = 2;
    }
    for (;;) {
        /* Both children's boxes, a leaf's too, tested without a branch: the warp's lanes run the
         * same instructions whatever their children are, and a leaf's sphere is tested only where
         * the ray's cone enters its box. The boxes first, then the spheres: a box's six floats are
         * not kept alive through a sphere's test. */
        float enter[2];
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const float entry = lean_cone_entry(boxes[k], &cone, picks, best);
            enter[k] = k < child_count ? entry : INFINITY;
        }
        /* The child that goes on next unless a sphere of this node comes nearer: the nearer
         * entered inner child, or else the pending child on top of the stack. Its children are
         * loaded now, and the load is under way while this node's spheres are tested; the choice
         * below, made as before once they are, almost always agrees, and where it does not, the
         * walk loads what it chose. */
        float inner_enter[2];
#pragma unroll
        for (int k = 0; k < 2; k++) {
            inner_enter[k] = children[k] >= 0 ? enter[k] : INFINITY;
        }
        const bool right_nearer = inner_enter[1] < inner_enter[0];
        const float enter_far = right_nearer ? inner_enter[0] : inner_enter[1];
        const float enter_near = right_nearer ? inner_enter[1] : inner_enter[0];
        const int near_child = right_nearer ? children[1] : children[0];
        const int far_child = right_nearer ? children[0] : children[1];
        const int likely_next =
            enter_near != INFINITY ? near_child : (top > 0 ? stack[top - 1].node : -1);
        int next_children[2];
        uint3 next_boxes[2];
        if (likely_next >= 0) {
            load_children(scene->nodes, likely_next, next_children, next_boxes);
        }
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const int child = children[k];
            if (child >= 0 || enter[k] == INFINITY) {
                continue;
            }
            float3 oc;
            float c, t;
            if (what == NEAREST_FROM_CAMERA) {
                const float4 from_camera = __ldg(&scene->leaf_from_camera[~child]);
                oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                c = from_camera.w;
            } else {
                oc = from_sphere(origin, __ldg(&scene->leaf_geometry[~child]), &c);
            }
            if (!has_intersection(oc, c, direction, a, &t)) {
                continue;
            }
            if (what == ANY_BLOCKER) {
                if (t > 1e-6f) {
                    *distance = t;
                    return __ldg(&scene->order[~child]);
                }
            } else if (t <= best) {
                /* Only now the sphere's index: it decides a tie. */
                const int s = __ldg(&scene->order[~child]);
                if (t < best || (hit >= 0 && s < hit)) {
                    best = t;
                    hit = s;
                }
            }
        }
        /* A tree deeper than the stack: the rest of the answer from every sphere. */
        if (top + 1 > TREE_STACK) {
            return every_sphere(scene, what, origin, direction, a, best, hit, distance);
        }
        /* The nearer entered child is taken next, straight from registers; only the farther
         * waits on the stack. A nearer child entered past the best t (a sphere of this node came
         * nearer) is dropped, and so is the farther, entered later still. */
        int next = -1;
        if (enter_near != INFINITY && !(enter_near > best)) {
            if (enter_far != INFINITY) {
                stack[top].node = far_child;
                stack[top++].enter = enter_far;
            }
            next = near_child;
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
        current = next;
        if (next == likely_next) {
            children[0] = next_children[0];
            children[1] = next_children[1];
            boxes[0] = next_boxes[0];
            boxes[1] = next_boxes[1];
        } else {
            load_children(scene->nodes, current, children, boxes);
        }
        child_count = 2;
    }
    *distance = best;
    return hit;
}
