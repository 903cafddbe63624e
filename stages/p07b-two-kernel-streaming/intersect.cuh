/* The intersection: a live path's ray against every sphere, for the nearest hit. No kernel of its
 * own: the extension kernel calls it, and the hit stays in registers. */

__device__ static struct hit nearest_hit(struct ray ray, int sphere_count)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(c_spheres[s], ray.origin, ray.direction);
        if (t < hit.t) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}
