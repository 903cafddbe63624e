/* The rays of a pixel, one kind a pass: render_pixel traces the primary ray and queues the point
 * it hits; trace_secondary walks that point's shadow and reflection rays and queues the point the
 * reflection hits; trace_reflection_shadow walks that point's shadow ray. A pixel's colour is
 * made in the pass where its last ray ends, by shade_pixel. */

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ inline float shadow_factor(const Scene *scene, float3 origin, float3 direction)
{
    float t;
    return search_tree(scene, ANY_BLOCKER, origin, direction, dot3(direction, direction), &t) >= 0
               ? 0.35f
               : 1.0f;
}

/* A queue of rays of one kind, filled by one pass and walked by the next: entry k is a ray and
 * what its pixel's colour needs besides the ray's answer, each float as the pass before worked it
 * out. Arrays of 16- and 8-byte entries: a warp's 32 consecutive entries are whole lines. */
struct ray_queue {
    float4 *origin;    /* x, y, z: where the ray starts, a point lifted off a surface; w: diffuse */
    float4 *direction; /* x, y, z: the reflection's direction, or the way to the light;
                          w: specular */
    int2 *pixel;       /* the pixel, and the sphere its primary ray hit */
    int2 *reflection;  /* the reflections' queue only: the sphere the reflection hit, and the bits
                        * of the pixel's shadow factor (NULL in the hits' queue) */
    int *count;        /* entries so far: zeroed before the band's first pass */
};

/* Appends an entry, and returns its slot. The lanes of a warp that append together make one
 * atomicAdd and take consecutive slots in lane order: the pixels of a warp's tile stay side by
 * side in the queue, and a warp of the next pass walks rays that start close together. */
__device__ inline int queue_push(const struct ray_queue *queue, float3 origin, float diffuse,
                                 float3 direction, float specular, int pixel, int sphere)
{
    const unsigned int lanes = __activemask();
    unsigned int below; /* the lanes before this one */
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
    const int rank = __popc(lanes & below);
    int first = 0;
    if (rank == 0) {
        first = atomicAdd(queue->count, __popc(lanes));
    }
    const int slot = __shfl_sync(lanes, first, __ffs(lanes) - 1) + rank;
    queue->origin[slot] = make_float4(origin.x, origin.y, origin.z, diffuse);
    queue->direction[slot] = make_float4(direction.x, direction.y, direction.z, specular);
    queue->pixel[slot] = make_int2(pixel, sphere);
    return slot;
}

/* Lights the point and stores the pixel's colour: stage 32's expressions, on the values the
 * passes stored. */
__device__ inline void shade_pixel(unsigned char *framebuffer, int pixel, const Sphere *sphere,
                                   float diffuse, float specular, float shadow, float3 reflection)
{
    const Light *light = &constant_light;
    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * diffuse, light->color)),
                                 scale3(light->specular * specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    store_pixel(framebuffer, pixel, scale3(255.999f * shadow, all));
}

/* Pass 1, pixel (i, j): its primary ray; a miss stores the background, a hit queues the point. */
/* At most 256 threads a block, and five blocks an SM: 48 registers a thread (at six, 40 registers,
 * the code of this stage spills three times as much). An SM of compute capability 7.5 holds at
 * most 1,024 threads, so four blocks there. */
#define BLOCK_THREADS_MAX 256
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define BLOCKS_PER_SM_MIN 4
#else
#define BLOCKS_PER_SM_MIN 5
#endif
__device__ inline void render_pixel(unsigned char *framebuffer, const Scene *scene,
                                    const float *plane_x, const float *plane_y, int width,
                                    int height, int i, int j, const struct ray_queue *hits)
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
     * Worked out here, with the point, and queued with its rays: two floats, not the vectors
     * they come from, wait for the secondary rays. The specular term only where it can change a
     * bit (stage 20's render.cu): the rest keep 0, as the squarings give. */
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

    /* The point lifted off the surface, where its shadow and reflection rays start. The
     * reflection's direction is normalised before the walk: the boxes are entered in units of the
     * direction the spheres are tested with. */
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float3 reflected = normalize3(mirror);
    queue_push(hits, lifted, diffuse, reflected, specular, pixel, hit);
}

/* Pass 2, entry k of the hits' queue: the point's shadow ray and reflection ray; a reflection that
 * misses ends the pixel (its colour stored here), one that hits queues the point it lands on. */
__device__ inline void trace_secondary(unsigned char *framebuffer, const Scene *scene,
                                       const struct ray_queue *hits, int k,
                                       const struct ray_queue *reflections)
{
    const Sphere *spheres = scene->spheres;
    const Light *light = &constant_light;
    const Camera *camera = &constant_camera;
    const float4 start = hits->origin[k];
    const float4 way = hits->direction[k];
    const float3 lifted = make_float3(start.x, start.y, start.z);
    const float3 reflected = make_float3(way.x, way.y, way.z);

    /* Shadow: is anything between the point (lifted off the surface) and the light? */
    const float shadow = shadow_factor(scene, lifted, sub3(light->position, lifted));

    /* Reflection: what the mirrored light direction sees from the point. */
    float t_reflection;
    const int reflection_hit = search_tree(scene, NEAREST, lifted, reflected,
                                           dot3(reflected, reflected), &t_reflection);
    const int2 pixel = hits->pixel[k];
    if (reflection_hit >= 0) {
        const Sphere other_data = spheres[reflection_hit];
        const Sphere *other = &other_data;
        const float3 q = add3(lifted, scale3(t_reflection, reflected));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const int slot =
            queue_push(reflections, q_lifted, start.w, q_to_light, way.w, pixel.x, pixel.y);
        reflections->reflection[slot] = make_int2(reflection_hit, __float_as_int(shadow));
        return;
    }
    shade_pixel(framebuffer, pixel.x, &spheres[pixel.y], start.w, way.w, shadow,
                camera->background_unit);
}

/* Pass 3, entry k of the reflections' queue: the shadow ray where the reflection lands, then the
 * pixel's colour. */
__device__ inline void trace_reflection_shadow(unsigned char *framebuffer, const Scene *scene,
                                               const struct ray_queue *reflections, int k)
{
    const Sphere *spheres = scene->spheres;
    const float4 start = reflections->origin[k];
    const float4 way = reflections->direction[k];
    const float reflection_shadow = shadow_factor(scene, make_float3(start.x, start.y, start.z),
                                                  make_float3(way.x, way.y, way.z));
    const int2 pixel = reflections->pixel[k];
    const int2 reflection = reflections->reflection[k];
    const Sphere other_data = spheres[reflection.x];
    const Sphere *other = &other_data;
    shade_pixel(framebuffer, pixel.x, &spheres[pixel.y], start.w, way.w,
                __int_as_float(reflection.y), scale3(reflection_shadow, other->color));
}
