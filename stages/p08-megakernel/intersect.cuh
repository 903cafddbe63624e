/* The closest hit: every sphere of the scene tested in file order, a strictly nearer hit kept. */

__device__ static struct hit closest_hit(struct ray ray, int sphere_count)
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
