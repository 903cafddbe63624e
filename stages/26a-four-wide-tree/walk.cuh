/* The walk: search_tree finds the nearest sphere a ray meets, or any that blocks it. */

/* The walk's stack: a depth-first walk of wide nodes holds at most three pending children a
 * level (the fourth is taken), plus four. A clustered tree of random spheres is about 2.5 log2(n)
 * binary levels deep (about 45 for 100,000), so about 23 wide levels: at worst about 70 entries,
 * far fewer in practice (only entered children are pushed, and popped ones leave). A walk that
 * would overflow is finished by the loop over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
#endif

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct Pending {
    int node;
    float enter;
};

/* Orders two pending children by where the ray enters them, the nearer first. */
__device__ inline void order_pair(float *enter_a, int *child_a, float *enter_b, int *child_b)
{
    if (*enter_b < *enter_a) {
        const float enter = *enter_a;
        const int child = *child_a;
        *enter_a = *enter_b;
        *child_a = *child_b;
        *enter_b = enter;
        *child_b = child;
    }
}

/* Walks the tree for a ray (direction d, a = d.d, inverse = 1 / d per component): takes the
 * nearest pending child, drops it if the ray enters it past the best t so far, else tests its wide
 * node's children: a leaf's sphere at once, an inner node's box, held by the wide node, for its
 * entry (spec_bvh_entry widens each box by what rounding can reach: the image's bits rest on it,
 * common/raytrace/spec_bvh.h); the entered ones are sorted by entry and pushed, the farthest first.
 * The nearest hit is the smallest (t, index), as SPEC.md's loop in file order finds it; a blocker
 * ends the walk. Returns the sphere (or -1) and its t in *distance. Inlined with `what` known, each
 * call keeps only its own branches. */
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
    /* The wide node whose children are tested next: the root's, or for a sphere alone its leaf. */
    int current = scene->root;
    int children[WIDE] = {scene->root, EMPTY_CHILD, EMPTY_CHILD, EMPTY_CHILD};
    if (current >= 0) {
        load_children(scene->wide, current, children);
    }
    for (;;) {
        /* The boxes first, then the spheres: a box's six floats are not kept alive through a
         * sphere's test. */
        float enter[WIDE] = {INFINITY, INFINITY, INFINITY, INFINITY};
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            if (children[k] >= 0) {
                struct spec_bvh_node box;
                load_child_box(scene->wide, current, k, &box);
                enter[k] = spec_bvh_entry(&box, from, per_unit, best);
            }
        }
#pragma unroll
        for (int k = 0; k < WIDE; k++) {
            const int child = children[k];
            if (child >= 0 || child == EMPTY_CHILD) {
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
        if (top + WIDE > TREE_STACK) {
            return every_sphere(scene, what, origin, direction, a, best, hit, distance);
        }
        /* The entered children by entry, nearest first (a sorting network of five exchanges,
         * in registers), then pushed farthest first, so that the nearest is taken next. A leaf or
         * an empty slot has no entry (INFINITY) and sorts last. */
        order_pair(&enter[0], &children[0], &enter[1], &children[1]);
        order_pair(&enter[2], &children[2], &enter[3], &children[3]);
        order_pair(&enter[0], &children[0], &enter[2], &children[2]);
        order_pair(&enter[1], &children[1], &enter[3], &children[3]);
        order_pair(&enter[1], &children[1], &enter[2], &children[2]);
#pragma unroll
        for (int k = WIDE - 1; k >= 0; k--) {
            if (enter[k] != INFINITY) {
                stack[top].node = children[k];
                stack[top++].enter = enter[k];
            }
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
        current = next;
        load_children(scene->wide, current, children);
    }
    *distance = best;
    return hit;
}
