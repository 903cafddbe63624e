/*
 * Stage 03, threads per block: 32x32 (1024, the most a block may have) instead of 16x16.
 *
 * The block size decides how many blocks share a multiprocessor, and with the registers per
 * thread, the theoretical occupancy the report shows. Here it is also an option: --block WxH
 * lets a student sweep it without rebuilding. The kernel is stage 02's, unchanged.
 *
 * Builds on 02-static-registers.
 */
#include "gpu.h"
#include "stage.h"

#define FAR_PLANE 100.0f

struct Vec3f {
    float x, y, z;
};

struct Sphere {
    Vec3f center;
    float radius;
    Vec3f color;
};

struct Light {
    Vec3f position;
    Vec3f color;
    float ambient, diffuse, specular;
};

struct Camera {
    Vec3f origin;
    Vec3f background; /* 0..255: what a ray that hits nothing sees */
};

/* ---- the vector type ---------------------------------------------------------------------- */

__host__ __device__ Vec3f vec3f_make(float x, float y, float z)
{
    Vec3f v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

__host__ __device__ Vec3f vec3f_add(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

__host__ __device__ Vec3f vec3f_sub(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

__host__ __device__ Vec3f vec3f_scale(float s, Vec3f v)
{
    return vec3f_make(s * v.x, s * v.y, s * v.z);
}

__host__ __device__ Vec3f vec3f_mul(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x * b.x, a.y * b.y, a.z * b.z);
}

__host__ __device__ float vec3f_dot(Vec3f a, Vec3f b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__host__ __device__ float vec3f_length(Vec3f v)
{
    return sqrt(vec3f_dot(v, v));
}

__host__ __device__ Vec3f vec3f_normalize(Vec3f v)
{
    float length = vec3f_length(v);
    return vec3f_make(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ float f_max(float a, float b)
{
    return a > b ? a : b;
}

__host__ __device__ float f_min(float a, float b)
{
    return a < b ? a : b;
}

__host__ __device__ Vec3f vec3f_cap(Vec3f v)
{
    return vec3f_make(f_min(v.x, 1.0f), f_min(v.y, 1.0f), f_min(v.z, 1.0f));
}

/* ---- rays and spheres --------------------------------------------------------------------- */

/* Returns true and the nearest positive distance along the ray in *t. */
__device__ bool has_intersection(Vec3f origin, Vec3f direction, const Sphere *sphere, float *t)
{
    const Vec3f oc = vec3f_sub(origin, sphere->center);
    const float a = vec3f_dot(direction, direction);
    const float b = 2.0f * vec3f_dot(direction, oc);
    const float c = vec3f_dot(oc, oc) - sphere->radius * sphere->radius;
    const float discriminant = b * b - 4.0f * a * c;
    if (discriminant < 0.0f) {
        return false;
    }
    const float root = sqrt(discriminant);
    const float two_a = 2.0f * a;
    const float t0 = (-b - root) / two_a;
    const float t1 = (-b + root) / two_a;
    /* t0 <= t1 whenever both are numbers (root >= 0, 2a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    *t = t0 > 0.0f ? t0 : t1;
    return *t > 0.0f;
}

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. */
__device__ int closest_sphere(Vec3f origin, Vec3f direction, const Sphere *spheres,
                              int sphere_count, float *distance)
{
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, &spheres[s], &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ float shadow_factor(Vec3f origin, Vec3f direction, const Sphere *spheres,
                               int sphere_count)
{
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, &spheres[s], &t) && t > 1e-6f) {
            return 0.35f;
        }
    }
    return 1.0f;
}

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

/* ---- the host side: allocate, copy, launch, copy back, free; every phase timed ------------ */

static Vec3f vec3f_from(struct spec_vec3 v)
{
    return vec3f_make(v.x, v.y, v.z);
}

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * sizeof(Vec3f);
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    Vec3f *framebuffer = (Vec3f *)host_alloc_or_exit(framebuffer_bytes, "the frame buffer");
    for (size_t p = 0; p < pixels; p++) {
        framebuffer[p] = vec3f_make(0.0f, 0.0f, 0.0f);
    }
    Sphere *spheres = (Sphere *)host_alloc_or_exit(spheres_bytes, "the spheres");
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = vec3f_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = vec3f_from(scene->spheres[s].colour);
    }
    Light *light = (Light *)host_alloc_or_exit(sizeof(Light), "the light");
    light->position = vec3f_from(scene->light_position);
    light->color = vec3f_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera = (Camera *)host_alloc_or_exit(sizeof(Camera), "the camera");
    camera->origin = vec3f_from(scene->camera);
    camera->background = vec3f_from(scene->background);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    Vec3f *device_framebuffer;
    Sphere *device_spheres;
    Light *device_light;
    Camera *device_camera;
    CUDA_CHECK(cudaMalloc((void **)&device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_spheres, spheres_bytes));
    CUDA_CHECK(cudaMalloc((void **)&device_light, sizeof(Light)));
    CUDA_CHECK(cudaMalloc((void **)&device_camera, sizeof(Camera)));
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(device_framebuffer, framebuffer, framebuffer_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_spheres, spheres, spheres_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_light, light, sizeof(Light), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(device_camera, camera, sizeof(Camera), cudaMemcpyHostToDevice));
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += framebuffer_bytes + spheres_bytes + sizeof(Light) + sizeof(Camera);

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads>>>(device_framebuffer, device_spheres, scene->sphere_count,
                                       device_light, device_camera, width, height);
    CUDA_CHECK_LAUNCH("render_kernel");
    kernel_timer_stop(&timer, report); /* waits for the kernel: a launch returns at once */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(framebuffer, device_framebuffer, framebuffer_bytes,
                          cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;

    start = timer_now_us();
    CUDA_CHECK(cudaFree(device_framebuffer));
    CUDA_CHECK(cudaFree(device_spheres));
    CUDA_CHECK(cudaFree(device_light));
    CUDA_CHECK(cudaFree(device_camera));
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready(job, (const float *)framebuffer);

    start = timer_now_us();
    free(framebuffer);
    free(spheres);
    free(light);
    free(camera);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
