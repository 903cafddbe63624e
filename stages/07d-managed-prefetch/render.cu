/*
 * Stage 07d, managed memory with prefetching (a side stage): pages moved before use.
 *
 * Stage 07c's managed buffers, with the migrations asked for ahead of time: cudaMemPrefetchAsync
 * moves the scene to the GPU before the kernel and the frame to the host after it, in bulk
 * instead of one page fault at a time, and each phase waits for its prefetch. The host still
 * reads one byte of every 4 KiB page of the frame, now already resident.
 *
 * Builds on 07c-unified-memory.
 */
#include "gpu.h"
#include "stage.h"

#define FAR_PLANE 100.0f

struct Sphere {
    float3 center;
    float radius;
    float3 color;
};

struct Light {
    float3 position;
    float3 color;
    float ambient, diffuse, specular;
};

struct Camera {
    float3 origin;
    float3 background; /* 0..255: what a ray that hits nothing sees */
};

/* ---- the vector type: CUDA's float3 (vector_types.h) and small helpers --------------------- */

__host__ __device__ inline float3 add3(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

__host__ __device__ inline float3 sub3(float3 a, float3 b)
{
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

__host__ __device__ inline float3 scale3(float s, float3 v)
{
    return make_float3(s * v.x, s * v.y, s * v.z);
}

__host__ __device__ inline float3 mul3(float3 a, float3 b)
{
    return make_float3(a.x * b.x, a.y * b.y, a.z * b.z);
}

__host__ __device__ inline float dot3(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Three divisions by the length, not a multiplication by its reciprocal: the same bits as
 * SPEC.md (docs/reference.md: same picture). */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
    return make_float3(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ inline float3 cap3(float3 v)
{
    return make_float3(fminf(v.x, 1.0f), fminf(v.y, 1.0f), fminf(v.z, 1.0f));
}

/* ---- rays and spheres --------------------------------------------------------------------- */

/* Returns true and the nearest positive distance along the ray in *t. */
__device__ bool has_intersection(float3 origin, float3 direction, const Sphere *sphere, float *t)
{
    const float3 oc = sub3(origin, sphere->center);
    const float a = dot3(direction, direction);
    const float b = 2.0f * dot3(direction, oc);
    const float c = dot3(oc, oc) - sphere->radius * sphere->radius;
    const float discriminant = b * b - 4.0f * a * c;
    if (discriminant < 0.0f) {
        return false;
    }
    const float root = sqrtf(discriminant);
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
__device__ int closest_sphere(float3 origin, float3 direction, const Sphere *spheres,
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
__device__ float shadow_factor(float3 origin, float3 direction, const Sphere *spheres,
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

/* ---- the host side: allocate, copy, launch, copy back, free; every phase timed ------------ */

static float3 float3_from(struct spec_vec3 v)
{
    return make_float3(v.x, v.y, v.z);
}

/* Where the host's reads of the frame go, so that the compiler keeps them. */
static volatile unsigned page_sink;

/* Starts moving managed memory to a device, or to the host for cudaCpuDeviceId. CUDA 13 takes
 * a cudaMemLocation and flags; CUDA 11.8 and 12 take the device number. */
static void prefetch(const void *memory, size_t bytes, int device)
{
#if CUDART_VERSION >= 13000
    struct cudaMemLocation location;
    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    location.id = device == cudaCpuDeviceId ? 0 : device;
    CUDA_CHECK(cudaMemPrefetchAsync(memory, bytes, location, 0, 0));
#else
    CUDA_CHECK(cudaMemPrefetchAsync(memory, bytes, device, 0));
#endif
}

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
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
    size_t framebuffer_bytes = pixels * sizeof(float3);
    size_t spheres_bytes = (size_t)scene->sphere_count * sizeof(Sphere);

    double start = timer_now_us();
    float3 *framebuffer;
    CUDA_CHECK(cudaMallocManaged((void **)&framebuffer, framebuffer_bytes));
    Sphere *spheres;
    CUDA_CHECK(cudaMallocManaged((void **)&spheres, spheres_bytes));
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaMallocManaged((void **)&light, sizeof(Light)));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaMallocManaged((void **)&camera, sizeof(Camera)));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us(); /* nothing: the managed allocations serve the device too */
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    prefetch(spheres, spheres_bytes, device);
    prefetch(light, sizeof(Light), device);
    prefetch(camera, sizeof(Camera), device);
    CUDA_CHECK(cudaDeviceSynchronize()); /* the phase ends when the pages are on the GPU */
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);
    report->bytes_to_device += spheres_bytes + sizeof(Light) + sizeof(Camera);

    dim3 threads(job->block_x, job->block_y);
    dim3 blocks((width + threads.x - 1) / threads.x, (height + threads.y - 1) / threads.y);
    size_t shared_bytes = spheres_bytes; /* the block's copy of the spheres */
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    render_kernel<<<blocks, threads, shared_bytes>>>(framebuffer, spheres, scene->sphere_count,
                                                     light, camera, width, height);
    CUDA_CHECK_LAUNCH("render_kernel");
    kernel_timer_stop(&timer, report); /* waits for the kernel: a launch returns at once */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y,
                         shared_bytes);

    /* The frame moved to the host in bulk; then the host reads one byte of every 4 KiB page of
     * it, as its consumer would begin, and finds each page already there. */
    start = timer_now_us();
    prefetch(framebuffer, framebuffer_bytes, cudaCpuDeviceId);
    CUDA_CHECK(cudaDeviceSynchronize()); /* the phase ends when the pages are on the host */
    const unsigned char *frame_bytes = (const unsigned char *)framebuffer;
    unsigned page_sum = 0;
    for (size_t offset = 0; offset < framebuffer_bytes; offset += 4096) {
        page_sum += frame_bytes[offset];
    }
    page_sink = page_sum;
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;

    start = timer_now_us(); /* nothing: the managed buffers are freed once, below */
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready(job, (const float *)framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaFree(framebuffer));
    CUDA_CHECK(cudaFree(spheres));
    CUDA_CHECK(cudaFree(light));
    CUDA_CHECK(cudaFree(camera));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
