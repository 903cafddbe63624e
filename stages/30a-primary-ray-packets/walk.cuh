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
    struct spec_bvh_node box;
    load_child_box(scene->nodes, scene->root, 0, &box);
    const float leave_left = spec_bvh_cone_leave(&box, &unbounded);
    load_child_box(scene->nodes, scene->root, 1, &box);
    const float leave_right = spec_bvh_cone_leave(&box, &unbounded);
    const float leave = leave_left != leave_left || leave_right != leave_right
                            ? INFINITY
                            : fmaxf(leave_left, leave_right);
    return spec_bvh_cone_of_ray_sloped(origin, direction, SPEC_BVH_CONE_SLOPE,
                                       fminf(t_max, leave));
}

/* Walks the tree for a ray (direction d, a = d.d): tests a node's two children, a leaf's sphere
 * at once, an inner node's box, held by its parent, for where the ray's cone enters it
 * (spec_bvh_cone_entry on the box widened at build time: the image's bits rest on the two,
 * common/raytrace/spec_bvh.h); goes on to the nearer entered child, pushing the farther, or, with
 * none to take, to the nearest pending child the ray enters at or before the best t so far. The
 * nearest hit is the smallest (t, index), as SPEC.md's loop in file order finds it; a blocker ends
 * the walk. Returns the sphere (or -1) and its t in *distance. Inlined with `what` known, each call
 * keeps only its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    int hit = -1;
    Pending stack[TREE_STACK];
    int top = 0;
    /* The node whose children are tested next: the root, or for a sphere alone its leaf. */
    int current = scene->root;
    int children[2] = {scene->root, -1};
    int child_count = 1;
    if (current >= 0) {
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    for (;;) {
        /* The boxes first, then the spheres: a box's six floats are not kept alive through a
         * sphere's test. */
        float enter[2] = {INFINITY, INFINITY};
#pragma unroll
        for (int k = 0; k < 2; k++) {
            if (k < child_count && children[k] >= 0) {
                struct spec_bvh_node box;
                load_child_box(scene->nodes, current, k, &box);
                enter[k] = spec_bvh_cone_entry(&box, &cone, best);
            }
        }
#pragma unroll
        for (int k = 0; k < 2; k++) {
            const int child = children[k];
            if (k >= child_count || child >= 0) {
                continue;
            }
            /* Rays from the camera take search_tree_together (below). */
            float c, t;
            const float3 oc = from_sphere(origin, __ldg(&scene->leaf_geometry[~child]), &c);
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
        const bool right_nearer = enter[1] < enter[0];
        const float enter_far = right_nearer ? enter[0] : enter[1];
        const float enter_near = right_nearer ? enter[1] : enter[0];
        int next = -1;
        if (enter_near != INFINITY && !(enter_near > best)) {
            if (enter_far != INFINITY) {
                stack[top].node = right_nearer ? children[0] : children[1];
                stack[top++].enter = enter_far;
            }
            next = right_nearer ? children[1] : children[0];
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
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    *distance = best;
    return hit;
}

/* The walk of a warp's rays from the camera as one packet: search_tree_together. */
/* The stack of a warp's walk, one entry a lane: entry e in lane e % 32, in register slot e / 32
 * (slots chosen by constant indices, so they stay in registers). A warp of fewer lanes (a block
 * whose threads are no multiple of 32) holds as many entries a slot as it has lanes: a warp of one
 * lane two, so that its walks of a deep tree finish over every sphere (exact, not fast). */
#define WARP_STACK_SLOTS ((TREE_STACK + 31) / 32)

/* Which lanes of the warp of thread `thread` (counted across the block) exist: all 32, but in the
 * last warp of a block whose thread count is no multiple of 32. */
__device__ inline unsigned int warp_lanes(int thread)
{
    const int count = blockDim.x * blockDim.y - thread / 32 * 32;
    return count >= 32 ? 0xffffffffu : (1u << count) - 1u;
}

/* Walks the tree for the warp's rays from the camera (direction d, a = d.d) together: each lane
 * with a pixel (`has_pixel`) tests the children of the node the warp is at for its own ray,
 * when the node is on its way (its bit in `reached`), as search_tree does. The warp goes on to the
 * child that most of the lanes entering any child enter first, with the lanes that enter it, and
 * pushes the other child with its lanes; with none to take, it pops. A lane whose best hit came
 * nearer since a child was pushed tests that child's children for nothing: their boxes, entered
 * past its best t, let it drop out one level later. Called by every lane of `lanes` with the
 * same scene. Returns the lane's sphere (or -1) and its t in *distance. */
__device__ __forceinline__ int search_tree_together(const Scene *scene, unsigned int lanes,
                                                    int lane, bool has_pixel, float3 direction,
                                                    float a, float *distance)
{
    float best = FAR_PLANE;
    const float3 origin = constant_camera.origin;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    int hit = -1;
    int stack_node[WARP_STACK_SLOTS];
    unsigned int stack_lanes[WARP_STACK_SLOTS];
    const int lane_count = __popc(lanes);
    const int stack_size = lane_count * WARP_STACK_SLOTS < TREE_STACK
                               ? lane_count * WARP_STACK_SLOTS
                               : TREE_STACK;
    int top = 0;
    /* The node whose children are tested next, and the lanes whose walks reached it. */
    int current = scene->root;
    unsigned int reached = __ballot_sync(lanes, has_pixel);
    int children[2] = {scene->root, -1};
    int child_count = 1;
    if (current >= 0) {
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    for (;;) {
        const bool on_way = (reached >> lane) & 1u;
        float enter[2] = {INFINITY, INFINITY};
        if (on_way) {
#pragma unroll
            for (int k = 0; k < 2; k++) {
                if (k < child_count && children[k] >= 0) {
                    struct spec_bvh_node box;
                    load_child_box(scene->nodes, current, k, &box);
                    enter[k] = spec_bvh_cone_entry(&box, &cone, best);
                }
            }
#pragma unroll
            for (int k = 0; k < 2; k++) {
                const int child = children[k];
                if (k >= child_count || child >= 0) {
                    continue;
                }
                const float4 from_camera = __ldg(&scene->leaf_from_camera[~child]);
                const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                float t;
                if (!has_intersection(oc, from_camera.w, direction, a, &t)) {
                    continue;
                }
                if (t <= best) {
                    /* Only now the sphere's index: it decides a tie. */
                    const int s = __ldg(&scene->order[~child]);
                    if (t < best || (hit >= 0 && s < hit)) {
                        best = t;
                        hit = s;
                    }
                }
            }
        }
        /* A tree deeper than the warp's stack: the rest of each answer from every sphere. */
        if (top + 1 > stack_size) {
            if (!has_pixel) {
                return -1;
            }
            return every_sphere(scene, NEAREST_FROM_CAMERA, origin, direction, a, best, hit,
                                distance);
        }
        /* The votes: which children each lane enters before its best t, and which it enters
         * first. */
        const bool enters_left = enter[0] != INFINITY && !(enter[0] > best);
        const bool enters_right = enter[1] != INFINITY && !(enter[1] > best);
        const bool right_first = enters_right && (!enters_left || enter[1] < enter[0]);
        const unsigned int to_left = __ballot_sync(lanes, enters_left);
        const unsigned int to_right = __ballot_sync(lanes, enters_right);
        const unsigned int right_votes = __ballot_sync(lanes, right_first);
        const bool right_next = 2 * __popc(right_votes) > __popc(to_left | to_right);
        const unsigned int next_lanes = right_next ? to_right : to_left;
        const unsigned int later_lanes = right_next ? to_left : to_right;
        int next = -1;
        if (next_lanes != 0) {
            if (later_lanes != 0) {
                const int later = right_next ? children[0] : children[1];
#pragma unroll
                for (int slot = 0; slot < WARP_STACK_SLOTS; slot++) {
                    if (top == slot * lane_count + lane) {
                        stack_node[slot] = later;
                        stack_lanes[slot] = later_lanes;
                    }
                }
                top++;
            }
            next = right_next ? children[1] : children[0];
            reached = next_lanes;
        } else if (top > 0) {
            /* The last child pushed, read from the lane that holds it. */
            top--;
            int node = 0;
            unsigned int node_lanes = 0;
#pragma unroll
            for (int slot = 0; slot < WARP_STACK_SLOTS; slot++) {
                if (top / lane_count == slot) {
                    node = stack_node[slot];
                    node_lanes = stack_lanes[slot];
                }
            }
            next = __shfl_sync(lanes, node, top % lane_count);
            reached = __shfl_sync(lanes, node_lanes, top % lane_count);
        }
        if (next < 0) {
            break;
        }
        current = next;
        load_children(scene->nodes, current, children);
        child_count = 2;
    }
    *distance = best;
    return hit;
}
