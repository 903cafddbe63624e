/* The end of a segment of the path, once its walk has found the closest hit: returns 1 while the
 * path goes on (its next ray in path->ray); at its end adds what it brought back. */
__device__ static int end_segment(struct path *path, struct hit hit, unsigned long long *sums,
                                  struct spec_vec3 sky, const struct scene_on_gpu *scene,
                                  int max_depth)
{
    if (hit.sphere < 0) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, sky));
        return 0;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(scene->materials[hit.sphere], scene->spheres[hit.sphere], path->ray.origin,
                   path->ray.direction, hit.t, path->pixel, path->frame, path->segment, &scatter);
    if (scatter.event == PT_EMITTED) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, scatter.emitted));
        return 0;
    }
    /* Absorbed, or still going after the last segment: it brings nothing, nothing to add. */
    if (scatter.event == PT_ABSORBED || path->segment == max_depth - 1)
        return 0;
    path->attenuation = spec_mul(path->attenuation, scatter.attenuation);
    path->ray.origin = scatter.origin;
    path->ray.direction = scatter.direction;
    path->segment++;
    return 1;
}
