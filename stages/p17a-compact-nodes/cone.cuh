/* The box test through the ray's cone: a child's box, stored as halves, against it, and the cone
 * of a walk. */

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
