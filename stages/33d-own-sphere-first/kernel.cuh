/* The kernel: one thread per pixel traces the primary ray, the shadow ray, the reflection ray and
 * the shadow ray where the reflection lands, lights the point and stores its colour. */

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides.
 * The point lies on sphere `receiver`, which is tried first: a point on the side of its sphere
 * turned away from the light sends its shadow ray back through that sphere, so one sphere test
 * answers, and the walk is spared. It is the walk's own test on the sphere's own data
 * (geometry[s] is the walk's leaf_geometry[c] for s = order[c]), so a blocker it finds is one the
 * walk would accept. */
__device__ inline float shadow_factor(const Scene *scene, int receiver, float3 origin,
                                      float3 direction)
{
    const float a = dot3(direction, direction);
    float c, t;
    const float3 oc = from_sphere(origin, __ldg(&scene->geometry[receiver]), &c);
    if (has_intersection(oc, c, direction, a, &t) && t > 1e-6f) {
        return 0.35f;
    }
    return search_tree(scene, ANY_BLOCKER, origin, direction, a, &t) >= 0 ? 0.35f : 1.0f;
}

/* Renders pixel (i, j). */
/* At most 256 threads a block, and five blocks an SM: 48 registers a thread (at six, 40 registers,
 * the code of this stage spills three times as much). An SM of compute capability 7.5 holds at
 * most 1,024 threads, so four blocks there. */
#define BLOCK_THREADS_MAX 256
#ifndef BLOCKS_PER_SM_MIN /* -DBLOCKS_PER_SM_MIN=N tries another register budget */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define BLOCKS_PER_SM_MIN 4
#else
#define BLOCKS_PER_SM_MIN 5
#endif
#endif
__device__ inline void render_pixel(unsigned char *framebuffer, const Scene *scene,
                                    const float *plane_x, const float *plane_y, int width,
                                    int height, int i, int j)
{
    const Sphere *spheres = scene->spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int pixel = j * width + i;

    const float x = plane_x[i];
    const float y = plane_y[j];
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int hit =
        search_tree(scene, NEAREST_FROM_CAMERA, origin, direction, dot3(direction, direction), &t);
    if (hit < 0) {
        store_pixel(framebuffer, pixel, camera->background);
        return;
    }

    const Sphere sphere_data = spheres[hit];
    const Sphere *sphere = &sphere_data;
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    /* The reflected light direction before normalize3: the reflection ray's, and the specular
     * term's. */
    const float3 mirror = sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal));

    /* Phong lighting with exponent 32, as five squarings (docs/reference.md: same picture).
     * Worked out before the secondary rays, so that two floats, not the vectors they come
     * from, stay alive (in registers) across the shadow and reflection loops. The specular term
     * only where it can change a bit (stage 20's render.cu): the rest keep 0, as the squarings
     * give. */
    const float diffuse = fmaxf(dot3(to_light, normal), 0.0f);
    float specular = 0.0f;
    const float3 eye = sub3(origin, point);
    const float eye_cosine = dot3(mirror, eye);
    if (eye_cosine > 0.0f &&
        eye_cosine * eye_cosine > light->negligible_cosine_squared * dot3(eye, eye)) {
        const float3 to_viewer = normalize3(sub3(origin, point));
        const float3 reflected_light = normalize3(mirror);
        specular = fmaxf(dot3(reflected_light, to_viewer), 0.0f);
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
        specular = specular * specular;
    }

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow = shadow_factor(scene, hit, lifted, sub3(light->position, lifted));

    /* Reflection: what the mirrored light direction sees from the point. Normalised before the
     * walk: the boxes are entered in units of the direction the spheres are tested with. */
    float3 reflection;
    float t_reflection;
    const float3 reflected = normalize3(mirror);
    const int reflection_hit = search_tree(scene, NEAREST, lifted, reflected,
                                           dot3(reflected, reflected), &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere other_data = spheres[reflection_hit];
        const Sphere *other = &other_data;
        const float3 q = add3(lifted, scale3(t_reflection, reflected));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow = shadow_factor(scene, reflection_hit, q_lifted, q_to_light);
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
