/* The kernel: one thread per pixel traces the primary ray, the shadow ray, the reflection ray and
 * the shadow ray where the reflection lands, lights the point and stores its colour. */

__global__ void render_kernel(Vec3f *framebuffer, const Sphere *spheres, int sphere_count,
                              const Light *light, const Camera *camera, int width, int height)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= width || j >= height) {
        return;
    }
    const int pixel = j * width + i;

    const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    const Vec3f origin = camera->origin;
    const Vec3f direction = vec3f_sub(vec3f_make(x, y, -1.0f), origin);

    float t;
    const int hit = closest_sphere(origin, direction, spheres, sphere_count, &t);
    if (hit < 0) {
        framebuffer[pixel] = camera->background;
        return;
    }

    const Sphere *sphere = &spheres[hit];
    const Vec3f point = vec3f_add(origin, vec3f_scale(t, direction));
    const Vec3f normal = vec3f_normalize(vec3f_sub(point, sphere->center));
    const Vec3f to_viewer = vec3f_normalize(vec3f_sub(origin, point));
    const Vec3f to_light = vec3f_normalize(vec3f_sub(light->position, point));
    const Vec3f from_light = vec3f_scale(-1.0f, to_light);
    const Vec3f reflected_light = vec3f_normalize(vec3f_sub(
        from_light, vec3f_scale(2.0f * vec3f_dot(from_light, normal), normal)));

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. */
    const float diffuse = f_max(vec3f_dot(to_light, normal), 0.0f);
    float specular = f_max(vec3f_dot(reflected_light, to_viewer), 0.0f);
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;
    specular = specular * specular;

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const Vec3f lifted = vec3f_add(point, vec3f_scale(0.001f, normal));
    const float shadow = shadow_factor(lifted, vec3f_sub(light->position, lifted), spheres,
                                       sphere_count);

    /* Reflection: what the mirrored light direction sees from the point. */
    Vec3f reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, spheres, sphere_count, &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &spheres[reflection_hit];
        const Vec3f q = vec3f_add(lifted, vec3f_scale(t_reflection, reflected_light));
        const Vec3f q_normal = vec3f_normalize(vec3f_sub(q, other->center));
        const Vec3f q_lifted = vec3f_add(q, vec3f_scale(0.001f, q_normal));
        const Vec3f q_to_light =
            vec3f_add(vec3f_sub(light->position, q), vec3f_scale(0.001f, q_normal));
        const float reflection_shadow =
            shadow_factor(q_lifted, q_to_light, spheres, sphere_count);
        reflection = vec3f_scale(reflection_shadow, other->color);
    } else {
        reflection = vec3f_make(camera->background.x / 255.0f, camera->background.y / 255.0f,
                                camera->background.z / 255.0f);
    }

    const Vec3f lighting =
        vec3f_add(vec3f_add(vec3f_scale(light->ambient, light->color),
                            vec3f_scale(light->diffuse * diffuse, light->color)),
                  vec3f_scale(light->specular * specular, light->color));
    const Vec3f surface =
        vec3f_add(vec3f_scale(0.55f, vec3f_sub(sphere->color, reflection)), reflection);
    const Vec3f all = vec3f_mul(vec3f_cap(lighting), vec3f_cap(surface));
    framebuffer[pixel] = vec3f_scale(255.999f * shadow, all);
}
