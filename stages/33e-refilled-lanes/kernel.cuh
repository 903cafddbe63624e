/* A pixel's work, walk by walk: the primary ray, the shadow ray, the reflection ray and the shadow
 * ray where the reflection lands, each walk started when the one before has ended, and between
 * them what stage 22's render_pixel works out, in the same order of operations. */

/* At most 256 threads a block, and five blocks an SM: 48 registers a thread. An SM of compute
 * capability 7.5 holds at most 1,024 threads, so four blocks there. */
#define BLOCK_THREADS_MAX 256
#ifndef BLOCKS_PER_SM_MIN /* -DBLOCKS_PER_SM_MIN=N tries another register budget */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define BLOCKS_PER_SM_MIN 4
#else
#define BLOCKS_PER_SM_MIN 5
#endif
#endif

/* Where a lane's pixel is: walking one of its four rays, or done and waiting for another. */
enum pixel_phase { PRIMARY, SHADOW, REFLECTION, REFLECTION_SHADOW, NEEDS_PIXEL };

/* What a pixel keeps from one walk to the next. In shared memory, one a thread: read and written
 * only between walks, so the walk keeps the registers. */
struct pixel_state {
    int pixel;    /* j * width + i */
    int sphere;   /* the sphere the primary ray hit */
    int other;    /* the sphere the reflection ray hit */
    float diffuse, specular, shadow;
    float3 reflected; /* the reflection ray's direction, while the shadow ray walks */
};

/* Starts pixel (i, j): its primary ray's walk. */
__device__ inline void start_pixel(const Scene *scene, struct pixel_state *state,
                                   struct walk *walk, const float *plane_x, const float *plane_y,
                                   int width, int i, int j)
{
    const Camera *camera = &constant_camera;
    state->pixel = j * width + i;
    const float x = plane_x[i];
    const float y = plane_y[j];
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);
    start_walk(scene, walk, NEAREST_FROM_CAMERA, origin, direction);
}

/* The pixel's colour, once its walks are done, stored. */
__device__ inline void finish_pixel(unsigned char *framebuffer, const Scene *scene,
                                    const struct pixel_state *state, float3 reflection)
{
    const Light *light = &constant_light;
    const Sphere sphere_data = scene->spheres[state->sphere];
    const Sphere *sphere = &sphere_data;
    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * state->diffuse, light->color)),
                                 scale3(light->specular * state->specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    store_pixel(framebuffer, state->pixel, scale3(255.999f * state->shadow, all));
}

/* The primary ray's walk has ended: the background, or the point's lighting worked out and its
 * shadow ray's walk started. Returns the pixel's next phase. */
__device__ inline enum pixel_phase after_primary(unsigned char *framebuffer, const Scene *scene,
                                                 struct pixel_state *state, struct walk *walk)
{
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int hit = walk->hit;
    if (hit < 0) {
        store_pixel(framebuffer, state->pixel, camera->background);
        return NEEDS_PIXEL;
    }
    const float3 origin = walk->origin, direction = walk->direction;
    const float t = walk->best;
    const Sphere sphere_data = scene->spheres[hit];
    const Sphere *sphere = &sphere_data;
    const float3 point = add3(origin, scale3(t, direction));
    const float3 normal = normalize3(sub3(point, sphere->center));
    const float3 to_light = normalize3(sub3(light->position, point));
    const float3 from_light = scale3(-1.0f, to_light);
    const float3 mirror = sub3(from_light, scale3(2.0f * dot3(from_light, normal), normal));

    /* Phong lighting with exponent 32, as five squarings; the specular term only where it can
     * change a bit (stage 20's render.cu). */
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
    state->sphere = hit;
    state->diffuse = diffuse;
    state->specular = specular;
    /* The reflection ray's direction, normalised before its walk, kept while the shadow ray
     * walks from the point lifted off the surface towards the light. */
    state->reflected = normalize3(mirror);
    const float3 lifted = add3(point, scale3(0.001f, normal));
    start_walk(scene, walk, ANY_BLOCKER, lifted, sub3(light->position, lifted));
    return SHADOW;
}

/* The shadow ray's walk has ended: the reflection ray's walk starts from the same point. */
__device__ inline enum pixel_phase after_shadow(const Scene *scene, struct pixel_state *state,
                                                struct walk *walk)
{
    state->shadow = walk->hit >= 0 ? 0.35f : 1.0f;
    start_walk(scene, walk, NEAREST, walk->origin, state->reflected);
    return REFLECTION;
}

/* The reflection ray's walk has ended: the background seen in the mirror, or the shadow ray's walk
 * from where the reflection lands. */
__device__ inline enum pixel_phase after_reflection(unsigned char *framebuffer,
                                                    const Scene *scene,
                                                    struct pixel_state *state, struct walk *walk)
{
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const int reflection_hit = walk->hit;
    if (reflection_hit < 0) {
        finish_pixel(framebuffer, scene, state, camera->background_unit);
        return NEEDS_PIXEL;
    }
    const float3 lifted = walk->origin, reflected = walk->direction;
    const Sphere other_data = scene->spheres[reflection_hit];
    const Sphere *other = &other_data;
    const float3 q = add3(lifted, scale3(walk->best, reflected));
    const float3 q_normal = normalize3(sub3(q, other->center));
    const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
    const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
    state->other = reflection_hit;
    start_walk(scene, walk, ANY_BLOCKER, q_lifted, q_to_light);
    return REFLECTION_SHADOW;
}

/* The shadow ray where the reflection lands has ended: the pixel is done. */
__device__ inline enum pixel_phase after_reflection_shadow(unsigned char *framebuffer,
                                                           const Scene *scene,
                                                           const struct pixel_state *state,
                                                           const struct walk *walk)
{
    const float reflection_shadow = walk->hit >= 0 ? 0.35f : 1.0f;
    finish_pixel(framebuffer, scene, state,
                 scale3(reflection_shadow, scene->spheres[state->other].color));
    return NEEDS_PIXEL;
}
