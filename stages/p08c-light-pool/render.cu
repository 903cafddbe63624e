/*
 * Stage p08c, light pool (a side stage): a pool of light samples in shared memory (seed 003,
 * "sample from the shared pool").
 *
 * In p08b every candidate of every diffuse hit reads a light picked at random from the whole
 * list in global memory. Here each block first draws PT_LIGHT_POOL_SIZE light samples, one per
 * thread, into shared memory (one global read each), waits once at a barrier, and then every
 * candidate is an entry of that pool picked at random: a shared-memory read, no global one. A
 * block renders one tile of 128 pixels, and the pool is the tile's (estimator light-pool,
 * common/pathtrace/SPEC.md section 6): the tile's pixels choose among the same 128 samples, so
 * their estimates are correlated, but each is still unbiased.
 *
 * Builds on p08b-next-event.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128 /* a tile: block b renders tile b and draws its pool, an entry a thread */
#if BLOCK_THREADS != PT_LIGHT_POOL_SIZE
#error "a block draws its tile's pool, one entry a thread: BLOCK_THREADS is PT_LIGHT_POOL_SIZE"
#endif
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */

const struct stage_info stage_info = {
    MAX_SPHERES,
    "its constant-memory arrays",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

__constant__ struct pt_sphere c_spheres[MAX_SPHERES];
__constant__ struct pt_material c_materials[MAX_SPHERES];

struct ray {
    struct spec_vec3 origin, direction;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

__device__ static struct hit closest_hit(struct ray ray, int sphere_count)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    for (int s = 0; s < sphere_count; ++s) {
        float t = pt_sphere_hit(c_spheres[s], ray.origin, ray.direction);
        if (t < hit.t) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}

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

__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            int light_count, struct spec_vec3 camera, struct spec_vec3 sky,
                            int sphere_count, int width, int height, unsigned frame,
                            int max_depth)
{
    __shared__ struct pt_light_sample pool[PT_LIGHT_POOL_SIZE];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    /* Every thread of the block draws its entry and reaches the barrier, also one whose pixel
     * is past the image's end: it leaves only after. */
    if (light_count > 0)
        pool[threadIdx.x] = draw_pool_entry(lights, light_count, blockIdx.x, frame,
                                            (int)threadIdx.x);
    __syncthreads();
    if (p >= width * height)
        return;
    struct spec_vec3 colour = trace_path(p, width, height, camera, sky, sphere_count, pool,
                                         light_count, frame, max_depth);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}

/* What the kernel works on, on the GPU: the sums and the light list. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    struct pt_light *lights;  /* light_count; NULL when the scene has none */
};

static void paths_alloc(struct device_paths *d, int count, int light_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    d->lights = NULL;
    if (light_count > 0)
        CUDA_CHECK(cudaMalloc((void **)&d->lights, (size_t)light_count * sizeof(struct pt_light)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->lights)); /* cudaFree(NULL) does nothing */
}

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(struct device_paths *d, const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    size_t light_bytes = (size_t)world->light_count * sizeof(struct pt_light);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    if (light_bytes > 0)
        CUDA_CHECK(cudaMemcpy(d->lights, world->lights, light_bytes, cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes + light_bytes;
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->light_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)path_kernel, BLOCK_THREADS, 0);
    int blocks = (count + BLOCK_THREADS - 1) / BLOCK_THREADS;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    for (int frame = 0; frame < job->samples; ++frame) {
        path_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.lights, world->light_count,
                                               world->camera, world->sky, world->sphere_count,
                                               job->width, job->height, (unsigned)frame,
                                               job->max_depth);
        CUDA_CHECK_LAUNCH("path_kernel");
    }
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(sums, d.sums, sum_bytes, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = sum_bytes;

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
