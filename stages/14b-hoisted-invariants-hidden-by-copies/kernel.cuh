/* The kernel: one thread per pixel traces the primary ray, the shadow ray, the reflection ray and
 * the shadow ray where the reflection lands, lights the point and stores its colour. */

/* Renders the rows first_row .. end_row - 1 of the image (one band); blockIdx.y counts from
 * first_row. */
__global__ void render_kernel(unsigned char *framebuffer, const unsigned int *tile_bins,
                              const unsigned int *light_bins, const float *plane_x,
                              const float *plane_y, int mask_words, int sphere_count, int width,
                              int height, int first_row, int end_row, float shadow_near)
{
    const Sphere *spheres = constant_spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = first_row + blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= width || j >= end_row) {
        return;
    }
    const int pixel = j * width + i;

    const float x = plane_x[i];
    const float y = plane_y[j];
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int tiles_x = (width + TILE_SIZE - 1) / TILE_SIZE;
    const unsigned int *tile_bin =
        tile_bins + ((size_t)(j / TILE_SIZE) * tiles_x + i / TILE_SIZE) * mask_words;
    const int hit = closest_sphere_from_camera(direction, tile_bin, mask_words, &t);
    if (hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
        return;
    }

    const Sphere *sphere = &spheres[hit];
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_viewer = normalize3(sub3(origin, point));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    const float3 reflected_light =
        normalize3(sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal)));

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. */
    const float diffuse = fmaxf(dot3(to_light, normal), 0.0f);
    float specular = fmaxf(dot3(reflected_light, to_viewer), 0.0f);
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float near_squared = shadow_near * shadow_near;
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow =
        shadow_factor(lifted, sub3(light->position, lifted), light_bins, mask_words, near_squared);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, sphere_count, &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &spheres[reflection_hit];
        const float3 q = add3(lifted, scale3(t_reflection, reflected_light));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow =
            shadow_factor(q_lifted, q_to_light, light_bins, mask_words, near_squared);
        reflection = scale3(reflection_shadow, other->color);
    } else {
        reflection = camera->background_unit;
    }

    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * diffuse, light->color)),
                                 scale3(light->specular * specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    store_pixel(framebuffer, pixel, scale3(255.999f * shadow, all));
}
