/* The intersection kernel: each live path's ray against every sphere, for the nearest hit. */

__global__ void intersect_kernel(struct path_stream paths, struct hit_arrays hits,
                                 const struct stream_counters *counters, int sphere_count)
{
    int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= counters->live)
        return;
    const struct ray ray = load_ray(paths, slot);
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
    hits.t[slot] = hit.t;
    hits.sphere[slot] = hit.sphere;
}
