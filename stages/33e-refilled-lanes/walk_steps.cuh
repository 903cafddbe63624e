/* The walk, a step at a time: start_walk sets a ray's walk up, step_walk takes it one node on
 * (stage 33's loop body), so that a lane whose walk has ended can start another while the warp's
 * other lanes walk on. The stack, its entries and the ray's cone are stage 33's (its walk.cuh). */

/* A walk in progress: its ray (direction d, a = d.d), what it looks for, its cone, the best t
 * and sphere so far, the node whose children it tests next (their indices and boxes), and how
 * many children wait on its stack. */
struct walk {
    float3 origin, direction;
    float a;
    enum search what;
    struct spec_bvh_cone cone;
    struct plane_picks picks;
    float best;
    int hit;
    int children[2];
    uint3 boxes[2];
    int child_count;
    int top;
};

/* Starts the walk of a ray: the root's children next, or for a sphere alone its leaf, in a box
 * of all space (halves at -infinity and +infinity), which every ray enters. */
__device__ __forceinline__ void start_walk(const Scene *scene, struct walk *walk, enum search what,
                                           float3 origin, float3 direction)
{
    walk->origin = origin;
    walk->direction = direction;
    walk->a = dot3(direction, direction);
    walk->what = what;
    walk->best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    walk->cone = cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                              spec_v3(direction.x, direction.y, direction.z), walk->best);
    walk->picks = plane_picks_of_cone(&walk->cone);
    walk->hit = -1;
    walk->top = 0;
    const uint3 all_space = make_uint3(0xfc00fc00u, 0x7c00fc00u, 0x7c007c00u);
    walk->children[0] = scene->root;
    walk->children[1] = -1;
    walk->boxes[0] = all_space;
    walk->boxes[1] = all_space;
    walk->child_count = 1;
    if (scene->root >= 0) {
        load_children(scene->nodes, scene->root, walk->children, walk->boxes);
        walk->child_count = 2;
    }
}

/* One step of the walk, stage 33's loop body: tests the node's two children's boxes, held by the
 * parent, for where the ray's cone enters them, and the sphere of a leaf whose box it enters; goes
 * on to the nearer entered child, pushing the farther, or, with none to take, to the nearest
 * pending child the ray enters at or before the best t so far. The nearest hit is the smallest
 * (t, index), as SPEC.md's loop in file order finds it; a blocker ends the walk. Returns whether
 * the walk goes on; once it has ended, walk->hit is the sphere (or -1) and walk->best its t. */
__device__ __forceinline__ bool step_walk(const Scene *scene, struct walk *walk, Pending *stack)
{
    const enum search what = walk->what;
    /* Both children's boxes, a leaf's too, tested without a branch; a leaf's sphere only where
     * the ray's cone enters its box. */
    float enter[2];
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const float entry = lean_cone_entry(walk->boxes[k], &walk->cone, walk->picks, walk->best);
        enter[k] = k < walk->child_count ? entry : INFINITY;
    }
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const int child = walk->children[k];
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
            oc = from_sphere(walk->origin, __ldg(&scene->leaf_geometry[~child]), &c);
        }
        if (!has_intersection(oc, c, walk->direction, walk->a, &t)) {
            continue;
        }
        if (what == ANY_BLOCKER) {
            if (t > 1e-6f) {
                walk->best = t;
                walk->hit = __ldg(&scene->order[~child]);
                return false;
            }
        } else if (t <= walk->best) {
            /* Only now the sphere's index: it decides a tie. */
            const int s = __ldg(&scene->order[~child]);
            if (t < walk->best || (walk->hit >= 0 && s < walk->hit)) {
                walk->best = t;
                walk->hit = s;
            }
        }
    }
    /* A leaf is done: only inner children go on. */
#pragma unroll
    for (int k = 0; k < 2; k++) {
        enter[k] = walk->children[k] >= 0 ? enter[k] : INFINITY;
    }
    /* A tree deeper than the stack: the rest of the answer from every sphere. */
    if (walk->top + 1 > TREE_STACK) {
        /* Its t through a variable of its own: the address of a field of the walk, passed to a
         * function not inlined, would move the whole walk from registers to memory. */
        float distance;
        walk->hit = every_sphere(scene, what, walk->origin, walk->direction, walk->a, walk->best,
                                 walk->hit, &distance);
        walk->best = distance;
        return false;
    }
    /* The nearer entered child is taken next, straight from registers; only the farther waits on
     * the stack. A nearer child entered past the best t is dropped, and so is the farther. */
    const bool right_nearer = enter[1] < enter[0];
    const float enter_far = right_nearer ? enter[0] : enter[1];
    const float enter_near = right_nearer ? enter[1] : enter[0];
    int next = -1;
    if (enter_near != INFINITY && !(enter_near > walk->best)) {
        if (enter_far != INFINITY) {
            stack[walk->top].node = right_nearer ? walk->children[0] : walk->children[1];
            stack[walk->top++].enter = enter_far;
        }
        next = right_nearer ? walk->children[1] : walk->children[0];
    } else {
        /* The nearest pending child the ray still enters before the best t. */
        while (walk->top > 0) {
            const Pending pending = stack[--walk->top];
            if (!(pending.enter > walk->best)) {
                next = pending.node;
                break;
            }
        }
    }
    if (next < 0) {
        return false;
    }
    load_children(scene->nodes, next, walk->children, walk->boxes);
    walk->child_count = 2;
    return true;
}
