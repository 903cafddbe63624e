/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a depth-first walk holds at most one pending child a level, plus one. A
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

/* The top of every thread's stack: SHARED_STACK slots a thread, slot s of the block's thread t
 * at [s][t] (the block's threads in x-major order), so that the threads of a warp at the same
 * slot touch 32 consecutive 8-byte entries, and a thread's entries stay in the same banks at
 * every slot (an entry's two 4-byte words 8 bytes apart put lanes t and t + 16 in one bank).
 * 8 slots of 256 threads are 16 KB a block, 80 KB for the five blocks an SM holds. */
#ifndef SHARED_STACK
#define SHARED_STACK 8
#endif
#if SHARED_STACK < 1 || (SHARED_STACK & (SHARED_STACK - 1)) != 0
#error "SHARED_STACK must be a power of two: an entry's slot is its index's low bits"
#endif
#define BLOCK_THREADS_MAX 256 /* the kernel's bound, as kernel.cuh defines it: sizes stack_top */
__shared__ Pending stack_top[SHARED_STACK][BLOCK_THREADS_MAX];

/* The walk's stack: `count` entries, those below `spilled` in the thread's local array `spill`,
 * the rest in its ring of shared slots (entry e in slot e mod SHARED_STACK). The array is not a
 * member: a struct holding an array stays in local memory whole, its counts with it. */
struct Stack {
    int thread; /* the thread's column of stack_top */
    int count, spilled;
};

__device__ inline void push(struct Stack *stack, Pending *spill, int node, float enter)
{
    if (stack->count - stack->spilled == SHARED_STACK) {
        /* The ring is full: its oldest entry, in the slot the new one takes, to local memory. */
        spill[stack->spilled] =
            stack_top[stack->spilled & (SHARED_STACK - 1)][stack->thread];
        stack->spilled++;
    }
    Pending *slot = &stack_top[stack->count & (SHARED_STACK - 1)][stack->thread];
    slot->node = node;
    slot->enter = enter;
    stack->count++;
}

__device__ inline Pending pop(struct Stack *stack, const Pending *spill)
{
    stack->count--;
    if (stack->count < stack->spilled) {
        /* The ring is empty: the entry is the local array's top. */
        stack->spilled = stack->count;
        return spill[stack->count];
    }
    return stack_top[stack->count & (SHARED_STACK - 1)][stack->thread];
}

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

/* Walks the tree for a ray (direction d, a = d.d): takes the nearest pending child, drops it if
 * the ray enters it past the best t so far, else tests its two children: a leaf's sphere at once,
 * an inner node's box, held by its parent, for where the ray's cone enters it (spec_bvh_cone_entry
 * on the box widened at build time: the image's bits rest on the two, common/raytrace/spec_bvh.h);
 * the entered ones are pushed, the farther first. The nearest hit is the smallest (t, index), as
 * SPEC.md's loop in file order finds it; a blocker ends the walk. Returns the sphere (or -1) and
 * its t in *distance. Inlined with `what` known, each call keeps only its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    const struct spec_bvh_cone cone =
        cone_of_walk(scene, spec_v3(origin.x, origin.y, origin.z),
                     spec_v3(direction.x, direction.y, direction.z), best);
    int hit = -1;
    struct Stack stack;
    Pending spill[TREE_STACK];
    stack.thread = threadIdx.y * blockDim.x + threadIdx.x;
    stack.count = 0;
    stack.spilled = 0;
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
        if (stack.count + 2 > TREE_STACK) {
            return every_sphere(scene, what, origin, direction, a, best, hit, distance);
        }
        /* The farther entered child first on the stack, so that the nearer is taken next:
         * chosen by selects, not by an index (enter[far] would put both arrays in local memory). */
        const bool right_nearer = enter[1] < enter[0];
        const float enter_far = right_nearer ? enter[0] : enter[1];
        const float enter_near = right_nearer ? enter[1] : enter[0];
        if (enter_far != INFINITY) {
            push(&stack, spill, right_nearer ? children[0] : children[1], enter_far);
        }
        if (enter_near != INFINITY) {
            push(&stack, spill, right_nearer ? children[1] : children[0], enter_near);
        }
        /* The nearest pending child the ray still enters before the best t. */
        int next = -1;
        while (stack.count > 0) {
            const Pending pending = pop(&stack, spill);
            if (!(pending.enter > best)) {
                next = pending.node;
                break;
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
