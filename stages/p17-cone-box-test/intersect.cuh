/* The closest hit, by a walk of the tree from its root. */

/* A child waiting on the walk's stack: an inner node and where the ray enters its box. */
struct pending {
    int node;
    float enter;
};

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
