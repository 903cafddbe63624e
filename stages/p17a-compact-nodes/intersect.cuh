/* The closest hit, by a walk of the tree from its root. */

/* The walk's stack: a depth-first walk holds at most one pending child a level, plus one. A
 * clustered tree has no depth bound (a chain of ever larger spheres can make it as deep as the
 * sphere count); a deeper one is walked as far as the stack allows, then finished by the loop
 * over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
#endif

/* What the walk would find, from where a walk whose stack is full stopped (its best so far):
 * the loop over every sphere in file order, which meets ties in index order. Not inlined: it is
 * rarely called, and the walk keeps its registers. */
__device__ __noinline__ static struct hit every_sphere(struct ray ray,
                                                       const struct scene_on_gpu *scene,
                                                       struct hit hit)
{
    for (int s = 0; s < scene->sphere_count; ++s) {
        float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
        if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct pending {
    int node;
    float enter;
};

/* A half's bits (the low or the high 16 of a word) as a float: exact, every half is a float. */
__device__ static float half_bits_to_float(unsigned bits)
{
    return __half2float(__ushort_as_half((unsigned short)(bits & 0xffffu)));
}

/* A child's box from its three words: six halves widened to floats, where it is tested. */
__device__ static struct spec_bvh_node unpack_child_box(const struct tree_child *child)
{
    struct spec_bvh_node box;
    box.lo = spec_v3(half_bits_to_float(child->box[0]), half_bits_to_float(child->box[0] >> 16),
                     half_bits_to_float(child->box[1]));
    box.hi = spec_v3(half_bits_to_float(child->box[1] >> 16), half_bits_to_float(child->box[2]),
                     half_bits_to_float(child->box[2] >> 16));
    return box;
}

/* Where the ray's cone enters a child's box, widened at build time and rounded outward
 * (spec_bvh_cone_entry: a box that holds the widened one keeps every box that one keeps), or
 * INFINITY when no sphere inside can be a hit at or before t_max. */
__device__ static float child_entry(const struct tree_child *child,
                                    const struct spec_bvh_cone *cone, float t_max)
{
    struct spec_bvh_node box = unpack_child_box(child);
    return spec_bvh_cone_entry(&box, cone, t_max);
}

/* The ray's cone for a walk of hits up to t_max: spec_bvh_cone_for_walk with the root's two
 * children's boxes in place of the root's box. Only a ray with an axis it runs nearly parallel to
 * (|d| at most the slope: the cone drops the axis, its scales 0) needs the bound, up to where the
 * ray's cone leaves the later of them (or t_max), so that the axis culls too; for every other ray
 * the bound changes nothing, and the cone is made once. Where an axis gives no bound (NaN) there
 * is none but t_max. */
__device__ static struct spec_bvh_cone cone_of_walk(struct ray ray,
                                                    const struct scene_on_gpu *scene, float t_max)
{
    struct spec_bvh_cone unbounded = spec_bvh_cone_of_ray(ray.origin, ray.direction);
    if (unbounded.enter_scale[0] != 0.0f && unbounded.enter_scale[1] != 0.0f &&
        unbounded.enter_scale[2] != 0.0f)
        return unbounded;
    const struct tree_node *root = &scene->nodes[scene->root];
    struct spec_bvh_node box = unpack_child_box(&root->left);
    float leave_left = spec_bvh_cone_leave(&box, &unbounded);
    box = unpack_child_box(&root->right);
    float leave_right = spec_bvh_cone_leave(&box, &unbounded);
    float leave = leave_left != leave_left || leave_right != leave_right
                      ? INFINITY
                      : fmaxf(leave_left, leave_right);
    return spec_bvh_cone_of_ray_sloped(ray.origin, ray.direction, SPEC_BVH_CONE_SLOPE,
                                       fminf(t_max, leave));
}

/* A leaf's sphere against the best hit so far: it wins on (t, index), as the loop over every
 * sphere in file order decides. */
__device__ static void test_leaf(int leaf, struct ray ray, const struct scene_on_gpu *scene,
                                 struct hit *hit)
{
    int s = scene->order[leaf];
    float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
    if (t < hit->t || (t == hit->t && hit->sphere >= 0 && s < hit->sphere)) {
        hit->t = t;
        hit->sphere = s;
    }
}

/* Walks the tree as the main chain's walk does (stages 24, 25 and 29): at a node, both
 * children's boxes are tested where the node holds them, and a leaf child's sphere at once; the
 * walk goes on to the nearer entered child, pushing only the farther with where the ray enters
 * it, or, with none to take, to the nearest pending child the ray still enters at or before the
 * best t so far. Near first, a close hit is found early and every box behind it is dropped. */
__device__ static struct hit closest_hit(struct ray ray, const struct scene_on_gpu *scene)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    if (scene->root < 0) {
        test_leaf(~scene->root, ray, scene, &hit);
        return hit;
    }
    const struct spec_bvh_cone cone = cone_of_walk(ray, scene, hit.t);
    struct pending stack[TREE_STACK];
    int top = 0;
    int current = scene->root;
    for (;;) {
        const struct tree_node *node = &scene->nodes[current];
        const struct tree_child left = node->left, right = node->right;
        /* The boxes first, against the best t so far, then the leaves' spheres. */
        float enter_left = INFINITY, enter_right = INFINITY;
        if (left.index >= 0)
            enter_left = child_entry(&left, &cone, hit.t);
        if (right.index >= 0)
            enter_right = child_entry(&right, &cone, hit.t);
        if (left.index < 0)
            test_leaf(~left.index, ray, scene, &hit);
        if (right.index < 0)
            test_leaf(~right.index, ray, scene, &hit);
        /* A tree deeper than the stack: the rest of the answer from every sphere. */
        if (top + 1 > TREE_STACK)
            return every_sphere(ray, scene, hit);
        /* The nearer entered child next; the farther waits on the stack. A nearer child entered
         * past the best t (a leaf of this node came nearer) is dropped, and the farther too. */
        int right_nearer = enter_right < enter_left;
        float enter_near = right_nearer ? enter_right : enter_left;
        float enter_far = right_nearer ? enter_left : enter_right;
        int next = -1;
        if (enter_near != INFINITY && !(enter_near > hit.t)) {
            if (enter_far != INFINITY) {
                stack[top].node = right_nearer ? left.index : right.index;
                stack[top++].enter = enter_far;
            }
            next = right_nearer ? right.index : left.index;
        } else {
            /* The nearest pending child the ray still enters at or before the best t. */
            while (top > 0) {
                struct pending pending = stack[--top];
                if (!(pending.enter > hit.t)) {
                    next = pending.node;
                    break;
                }
            }
        }
        if (next < 0)
            return hit;
        current = next;
    }
}
