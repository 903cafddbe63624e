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

/* A walk in progress: the best hit so far, the ray's cone, the node whose children are tested
 * next (-1 once the walk is over), and how many pending children its stack holds (the stack, an
 * array of TREE_STACK, apart: in local memory, where the rest stays in registers). A thread keeps
 * its walk from one step to the next, so that it can stop between two nodes. */
struct walk {
    struct hit hit;
    struct spec_bvh_cone cone;
    int current;
    int top;
};

/* A walk for the ray from the root; for a scene of one sphere, over at once. */
__device__ static void start_walk(struct walk *walk, struct ray ray,
                                  const struct scene_on_gpu *scene)
{
    walk->hit.t = PT_T_FAR;
    walk->hit.sphere = -1;
    walk->top = 0;
    walk->current = scene->root;
    if (scene->root < 0) {
        test_leaf(~scene->root, ray, scene, &walk->hit);
        return;
    }
    walk->cone = cone_of_walk(ray, scene, walk->hit.t);
}

/* One step of the walk p17's closest_hit makes in a loop: tests the current node's two children,
 * then goes on to the nearer entered child, pushing the farther, or to the nearest pending child
 * the ray still enters at or before the best t. Returns 1 while the walk goes on, 0 once it is
 * over (its answer in walk->hit). */
__device__ static int walk_step(struct walk *walk, struct pending *stack, struct ray ray,
                                const struct scene_on_gpu *scene)
{
    if (walk->current < 0)
        return 0;
    const struct tree_node *node = &scene->nodes[walk->current];
    const struct tree_child left = node->left, right = node->right;
    /* The boxes first, against the best t so far, then the leaves' spheres. */
    float enter_left = INFINITY, enter_right = INFINITY;
    if (left.index >= 0)
        enter_left = child_entry(&left, &walk->cone, walk->hit.t);
    if (right.index >= 0)
        enter_right = child_entry(&right, &walk->cone, walk->hit.t);
    if (left.index < 0)
        test_leaf(~left.index, ray, scene, &walk->hit);
    if (right.index < 0)
        test_leaf(~right.index, ray, scene, &walk->hit);
    /* A tree deeper than the stack: the rest of the answer from every sphere. */
    if (walk->top + 1 > TREE_STACK) {
        walk->hit = every_sphere(ray, scene, walk->hit);
        walk->current = -1;
        return 0;
    }
    /* The nearer entered child next; the farther waits on the stack. A nearer child entered past
     * the best t (a leaf of this node came nearer) is dropped, and the farther too. */
    int right_nearer = enter_right < enter_left;
    float enter_near = right_nearer ? enter_right : enter_left;
    float enter_far = right_nearer ? enter_left : enter_right;
    int next = -1;
    if (enter_near != INFINITY && !(enter_near > walk->hit.t)) {
        if (enter_far != INFINITY) {
            stack[walk->top].node = right_nearer ? left.index : right.index;
            stack[walk->top++].enter = enter_far;
        }
        next = right_nearer ? right.index : left.index;
    } else {
        /* The nearest pending child the ray still enters at or before the best t. */
        while (walk->top > 0) {
            struct pending pending = stack[--walk->top];
            if (!(pending.enter > walk->hit.t)) {
                next = pending.node;
                break;
            }
        }
    }
    walk->current = next;
    return next >= 0;
}
