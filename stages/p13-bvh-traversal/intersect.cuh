/* The closest hit, by a walk of the tree from its root. */

/* Walks the tree with a stack of node indices: a node whose box the ray cannot enter before the
 * best t so far is skipped with everything inside (spec_bvh_may_hit widens each box by what
 * rounding can reach: the image's bits rest on it); a leaf's spheres are tested, and a sphere
 * wins on (t, index), as the loop over every sphere in file order decides. */
__device__ static struct hit closest_hit(struct ray ray, const struct scene_on_gpu *scene)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(ray.direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        struct spec_bvh_node node = scene->nodes[stack[--top]];
        if (!spec_bvh_may_hit(&node, ray.origin, inverse, hit.t))
            continue;
        if (node.count == 0) {
            stack[top++] = node.first + 1;
            stack[top++] = node.first;
            continue;
        }
        for (int k = 0; k < node.count; ++k) {
            int s = scene->order[node.first + k];
            float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
            if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
                hit.t = t;
                hit.sphere = s;
            }
        }
    }
    return hit;
}
