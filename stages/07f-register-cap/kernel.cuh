/* The kernel: one thread per pixel traces the primary ray, the shadow ray, the reflection ray and
 * the shadow ray where the reflection lands, lights the point and stores its colour. */

/* Blocks of 1024 threads a multiprocessor can hold at once: 2 where it holds 2048 threads (Volta,
 * A100, Hopper, B200: compute capability 7.0, 8.0, 9.0, 10.x), 1 where it holds 1024 (7.5) or 1536
 * (8.6 to 8.9, 11.0, 12.x), for which ptxas refuses a request for 2. */
#if defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 750 || (__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ < 900) || __CUDA_ARCH__ >= 1100)
#define BLOCKS_PER_SM 1
#else
#define BLOCKS_PER_SM 2
#endif

__launch_bounds__(1024, BLOCKS_PER_SM)
__global__ void render_kernel(float3 *framebuffer, const Sphere *spheres, int sphere_count,
                              const Light *light, const Camera *camera, int width, int height)
{
    /* The block's copy of the spheres: sphere_count * sizeof(Sphere) bytes, sized at launch.
     * Every thread of the block must reach the barrier, those past the image's edge in a partial
     * block too, so the copy and the barrier come before the bounds check below. */
    extern __shared__ Sphere shared_spheres[];
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int block_threads = blockDim.x * blockDim.y;
    for (int s = thread; s < sphere_count; s += block_threads) {
        shared_spheres[s] = spheres[s];
    }
    __syncthreads();

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= width || j >= height) {
        return;
    }
    const int pixel = j * width + i;

    const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
    const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    const float3 origin = camera->origin;
    const float3 direction = sub3(make_float3(x, y, -1.0f), origin);

    float t;
    const int hit = closest_sphere(origin, direction, shared_spheres, sphere_count, &t);
    if (hit < 0) {
        framebuffer[pixel] = camera->background;
        return;
    }

    const Sphere *sphere = &shared_spheres[hit];
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
    const float3 lifted = add3(point, scale3(0.001f, normal));
    const float shadow =
        shadow_factor(lifted, sub3(light->position, lifted), shared_spheres, sphere_count);

    /* Reflection: what the mirrored light direction sees from the point. */
    float3 reflection;
    float t_reflection;
    const int reflection_hit =
        closest_sphere(lifted, reflected_light, shared_spheres, sphere_count, &t_reflection);
    if (reflection_hit >= 0) {
        const Sphere *other = &shared_spheres[reflection_hit];
        const float3 q = add3(lifted, scale3(t_reflection, reflected_light));
        const float3 q_normal = normalize3(sub3(q, other->center));
        const float3 q_lifted = add3(q, scale3(0.001f, q_normal));
        const float3 q_to_light = add3(sub3(light->position, q), scale3(0.001f, q_normal));
        const float reflection_shadow =
            shadow_factor(q_lifted, q_to_light, shared_spheres, sphere_count);
        reflection = scale3(reflection_shadow, other->color);
    } else {
        reflection = make_float3(camera->background.x / 255.0f, camera->background.y / 255.0f,
                                 camera->background.z / 255.0f);
    }

    const float3 lighting = add3(add3(scale3(light->ambient, light->color),
                                      scale3(light->diffuse * diffuse, light->color)),
                                 scale3(light->specular * specular, light->color));
    const float3 surface = add3(scale3(0.55f, sub3(sphere->color, reflection)), reflection);
    const float3 all = mul3(cap3(lighting), cap3(surface));
    framebuffer[pixel] = scale3(255.999f * shadow, all);
}
