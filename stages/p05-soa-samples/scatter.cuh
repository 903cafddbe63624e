/* The scatter kernel: each live path's hit shaded and scattered (pt_math.h's materials): the path
 * ends, or goes on with a new ray. */

__global__ void scatter_kernel(struct ray_arrays rays, struct hit_arrays hits,
                               struct sample_arrays samples, const struct pt_sphere *spheres,
                               const struct pt_material *materials, struct spec_vec3 sky,
                               int count, unsigned frame, int segment, int max_depth)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= count)
        return;
    if (rays.done[p])
        return;
    struct ray ray = load_ray(rays, p);
    struct hit hit;
    hit.t = hits.t[p];
    hit.sphere = hits.sphere[p];
    struct sample sample = load_sample(samples, p);
    if (hit.sphere < 0) {
        sample.colour = spec_mul(sample.attenuation, sky);
        ray.done = 1;
    } else {
        struct pt_scatter scatter;
        pt_scatter_hit(materials[hit.sphere], spheres[hit.sphere], ray.origin, ray.direction,
                       hit.t, (unsigned)p, frame, segment, &scatter);
        if (scatter.event == PT_EMITTED) {
            sample.colour = spec_mul(sample.attenuation, scatter.emitted);
            ray.done = 1;
        } else if (scatter.event == PT_ABSORBED) {
            ray.done = 1;
        } else {
            sample.attenuation = spec_mul(sample.attenuation, scatter.attenuation);
            ray.origin = scatter.origin;
            ray.direction = scatter.direction;
            if (segment == max_depth - 1)
                ray.done = 1; /* still going after the last segment: it brings nothing */
        }
    }
    store_ray(rays, p, ray);
    store_sample(samples, p, sample);
}
