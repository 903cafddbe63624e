/* The closest hit, by a walk of the tree from its root. */

/* Walks the tree with a stack of children: an inner node whose box the ray cannot enter before
 * the best t so far is skipped with everything inside (spec_bvh_may_hit widens each box by what
 * rounding can reach: the image's bits rest on it); a leaf's sphere is tested, and a sphere wins
 * on (t, index), as the loop over every sphere in file order decides. */
__device__ static struct hit closest_hit(struct ray ray, const struct scene_on_gpu *scene)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(ray.direction);
    int stack[TREE_STACK];
    int top = 0;
    stack[top++] = scene->root;
    while (top > 0) {
        int child = stack[--top];
        if (child >= 0) {
            struct tree_node node = scene->nodes[child];
            struct spec_bvh_node box;
            box.lo = node.lo;
            box.hi = node.hi;
            if (spec_bvh_may_hit(&box, ray.origin, inverse, hit.t)) {
                /* A tree deeper than the stack: the rest of the answer from every sphere. */
                if (top + 2 > TREE_STACK)
                    return every_sphere(ray, scene, hit);
                stack[top++] = node.right;
                stack[top++] = node.left;
            }
            continue;
        }
        int s = scene->order[~child];
        float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
        if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}
