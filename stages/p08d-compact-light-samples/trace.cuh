/* A path with next-event estimation (SPEC-PATH-TRACING.md section 6): at every diffuse hit,
 * light samples through a reservoir and a shadow ray to the one it keeps. */

/* A pool entry in 16 bytes, one aligned load: which light (-1: no sample) and the unit normal
 * of the point on it. The rest of the sample is rebuilt from the light when it is read. */
struct __align__(16) pool_entry {
    int light;
    struct spec_vec3 normal;
};

/* Entry j of the pool of tile `tile` for frame `frame`: a light picked at random and a point on
 * it, which needs no read of the light. */
__device__ static struct pool_entry draw_pool_entry(int light_count, unsigned tile,
                                                    unsigned frame, int j)
{
    unsigned key_pixel = pt_pool_pixel(tile), key_event = pt_pool_event(j);
    struct pool_entry entry;
    entry.light = pt_light_pick(key_pixel, frame, key_event, light_count);
    if (!pt_light_normal(key_pixel, frame, key_event, &entry.normal))
        entry.light = -1;
    return entry;
}

/* The whole sample of a pool entry: its light read from global memory, the point, emission
 * and density rebuilt by pt_light_sample_at, as pt_light_sample_draw built them in p08c. */
__device__ static struct pt_light_sample inflate(struct pool_entry entry,
                                                 const struct pt_light *lights, int light_count)
{
    if (entry.light < 0)
        return pt_light_sample_none();
    return pt_light_sample_at(lights[entry.light], entry.light, entry.normal, light_count);
}

/* Next-event estimation at a diffuse hit: the candidates through a reservoir, then one shadow
 * ray to the kept one. Returns 1 and *brought (the throughput so far times what its light
 * brings) when that light is visible. */
__device__ static int next_event(struct pt_shading_point at, struct spec_vec3 attenuation,
                                 const struct pool_entry *pool, const struct pt_light *lights,
                                 int light_count, int sphere_count, unsigned pixel,
                                 unsigned frame, unsigned event, struct spec_vec3 *brought)
{
    struct pt_reservoir reservoir;
    pt_reservoir_start(&reservoir);
    for (int c = 0; c < PT_NEE_CANDIDATES; ++c)
        pt_reservoir_add(&reservoir, at,
                         inflate(pool[pt_pool_entry(pixel, frame, event, c)], lights,
                                 light_count),
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
                                              const struct pool_entry *pool,
                                              const struct pt_light *lights, int light_count,
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
            if (next_event(at, attenuation, pool, lights, light_count, sphere_count,
                           (unsigned)p, frame, (unsigned)segment + 1u, &brought))
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
