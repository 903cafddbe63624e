/* The box test through the ray's cone: a child's box against it, and the cone of a walk. */

/* Where the ray's cone enters a child's box, widened at build time (spec_bvh_cone_entry: the
 * image's bits rest on the two, common/raytrace/spec_bvh.h), or INFINITY when no sphere inside
 * can be a hit at or before t_max. */
__device__ static float child_entry(const struct tree_child *child,
                                    const struct spec_bvh_cone *cone, float t_max)
{
    struct spec_bvh_node box;
    box.lo = child->lo;
    box.hi = child->hi;
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
    struct spec_bvh_node box;
    box.lo = root->left.lo;
    box.hi = root->left.hi;
    float leave_left = spec_bvh_cone_leave(&box, &unbounded);
    box.lo = root->right.lo;
    box.hi = root->right.hi;
    float leave_right = spec_bvh_cone_leave(&box, &unbounded);
    float leave = leave_left != leave_left || leave_right != leave_right
                      ? INFINITY
                      : fmaxf(leave_left, leave_right);
    return spec_bvh_cone_of_ray_sloped(ray.origin, ray.direction, SPEC_BVH_CONE_SLOPE,
                                       fminf(t_max, leave));
}
