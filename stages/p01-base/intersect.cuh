/* The intersection kernel: each live path's ray against every sphere, for the nearest hit. */

__global__ void intersect_kernel(const struct ray *rays, struct hit *hits,
                                 const struct pt_sphere *spheres, int sphere_count, int count)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    const struct ray *ray = &rays[p];
    if (ray->done)
        return;
    struct hit *hit = &hits[p];
    hit->t = PT_T_FAR;
    hit->sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(spheres[s], ray->origin, ray->direction);
        if (t < hit->t) {
            hit->t = t;
            hit->sphere = s;
        }
    }
}
