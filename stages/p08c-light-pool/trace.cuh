/* A path with next-event estimation (SPEC-PATH-TRACING.md section 6): at every diffuse hit,
 * light samples through a reservoir and a shadow ray to the one it keeps. */

/* Entry j of the pool of tile `tile` for frame `frame`: a light picked at random from the whole
 * list in global memory, once per block and entry. */
__device__ static struct pt_light_sample draw_pool_entry(const struct pt_light *lights,
                                                         int light_count, unsigned tile,
                                                         unsigned frame, int j)
{
    unsigned key_pixel = pt_pool_pixel(tile), key_event = pt_pool_event(j);
    int light = pt_light_pick(key_pixel, frame, key_event, light_count);
    return pt_light_sample_draw(lights[light], light, key_pixel, frame, key_event, light_count);
}

/* Next-event estimation at a diffuse hit: the candidates through a reservoir, then one shadow
 * ray to the kept one. Returns 1 and *brought (the throughput so far times what its light
 * brings) when that light is visible. */
__device__ static int next_event(struct pt_shading_point at, struct spec_vec3 attenuation,
                                 const struct pt_light_sample *pool, int sphere_count,
                                 unsigned pixel, unsigned frame, unsigned event,
                                 struct spec_vec3 *brought)
{
    struct pt_reservoir reservoir;
    pt_reservoir_start(&reservoir);
    for (int c = 0; c < PT_NEE_CANDIDATES; ++c)
        pt_reservoir_add(&reservoir, at, pool[pt_pool_entry(pixel, frame, event, c)],
                         pt_reservoir_choice(pixel, frame, event, c));
    if (reservoir.sphere < 0)
        return 0;
    struct ray shadow;
    pt_shadow_ray(at, &reservoir, &shadow.origin, &shadow.direction);
    if (closest_hit(shadow, sphere_count).sphere != reservoir.sphere)
        return 0;
    *brought = pt_nee_contribution(&reservoir, attenuation);
    return 1;
}

/* Sample `frame` of pixel p, start to end: what pt_trace_sample_with computes for the
 * light-pool estimator, in this stage's registers and its block's pool. */
__device__ static struct spec_vec3 trace_path(int p, int width, int height, struct spec_vec3 camera,
                                              struct spec_vec3 sky, int sphere_count,
                                              const struct pt_light_sample *pool, int light_count,
                                              unsigned frame, int max_depth)
{
    struct ray ray;
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray.origin, &ray.direction);
    struct spec_vec3 attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    struct spec_vec3 radiance = spec_v3(0.0f, 0.0f, 0.0f); /* what the shadow rays brought */
    int after_diffuse = 0;
    for (int segment = 0; segment < max_depth; ++segment) {
        struct hit hit = closest_hit(ray, sphere_count);
        if (hit.sphere < 0)
            return spec_add(radiance, spec_mul(attenuation, sky));
        struct pt_material material = c_materials[hit.sphere];
        if (material.kind == PT_LIGHT) /* after a diffuse hit, its shadow ray counted the lamps */
            return after_diffuse ? radiance
                                 : spec_add(radiance, spec_mul(attenuation, material.colour));
        struct pt_scatter scatter;
        pt_scatter_hit(material, c_spheres[hit.sphere], ray.origin, ray.direction, hit.t,
                       (unsigned)p, frame, segment, &scatter);
        after_diffuse = material.kind == PT_DIFFUSE;
        /* None at the last segment: its shadow ray would be a segment more than a path has. */
        if (after_diffuse && light_count > 0 && segment + 1 < max_depth) {
            struct pt_shading_point at;
            pt_hit_surface(c_spheres[hit.sphere], ray.origin, ray.direction, hit.t, &at.point,
                           &at.normal);
            at.albedo = material.colour;
            struct spec_vec3 brought;
            if (next_event(at, attenuation, pool, sphere_count, (unsigned)p, frame,
                           (unsigned)segment + 1u, &brought))
                radiance = spec_add(radiance, brought);
        }
        if (scatter.event == PT_ABSORBED)
            break;
        attenuation = spec_mul(attenuation, scatter.attenuation);
        ray.origin = scatter.origin;
        ray.direction = scatter.direction;
    }
    return radiance; /* absorbed, or still going after the last segment: the shadow rays' */
}
