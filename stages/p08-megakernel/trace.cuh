/* Sample `frame` of pixel p, start to end: what pt_trace_sample computes, in this stage's
 * registers. */
__device__ static struct spec_vec3 trace_path(int p, int width, int height, struct spec_vec3 camera,
                                              struct spec_vec3 sky, int sphere_count,
                                              unsigned frame, int max_depth)
{
    struct ray ray;
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray.origin, &ray.direction);
    struct spec_vec3 attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    for (int segment = 0; segment < max_depth; ++segment) {
        struct hit hit = closest_hit(ray, sphere_count);
        if (hit.sphere < 0)
            return spec_mul(attenuation, sky);
        struct pt_scatter scatter;
        pt_scatter_hit(c_materials[hit.sphere], c_spheres[hit.sphere], ray.origin, ray.direction,
                       hit.t, (unsigned)p, frame, segment, &scatter);
        if (scatter.event == PT_EMITTED)
            return spec_mul(attenuation, scatter.emitted);
        if (scatter.event == PT_ABSORBED)
            break;
        attenuation = spec_mul(attenuation, scatter.attenuation);
        ray.origin = scatter.origin;
        ray.direction = scatter.direction;
    }
    return spec_v3(0.0f, 0.0f, 0.0f); /* absorbed, or still going after the last segment */
}
