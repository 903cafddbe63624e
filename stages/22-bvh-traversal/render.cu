/*
 * Stage 22, a bounding volume hierarchy: every ray finds its spheres through a tree of boxes.
 *
 * Until now every stage's cost grew with the sphere count: the bins of stage 14 and the packets
 * of stage 17 pick, per tile, light cell or warp, the spheres a ray may meet, but they test each
 * sphere to decide, and constant memory held at most 1,024. Here the spheres live in global
 * memory, and a hierarchy of boxes is built over them on the host every frame (common/bvh.c:
 * top down by the surface area heuristic, leaves of at most four spheres) and uploaded with
 * them. A ray walks the tree from the root with a small stack: a box it cannot enter is skipped
 * with everything inside, so a ray tests the spheres of a few leaves, about log2(n) boxes deep,
 * instead of all n. The tile bins, the light buffer, the warp packets and their setup are gone.
 *
 * The image keeps its bits. The tree meets spheres in another order than the file's, so the
 * nearest hit is the smallest (t, index): among equal t the first sphere in file order wins, as
 * SPEC.md's loop decides. And a box is skipped only when no sphere inside it can pass the rounded
 * intersection test: spec_bvh_may_hit (common/spec_bvh.h) widens each box, for each ray, by more
 * than the rounding can reach (SPEC_BVH_REACH). A shadow ray stops at its first blocker, in any
 * order. The scene may hold 100,000 spheres, the format's limit.
 *
 * Kept from earlier stages: stage 12's half of b (powers of two scale a float exactly), and
 * stage 20's skips (the specular cutoff, spheres a reflection leaves; the README of
 * 20-skipped-work).
 *
 * Builds on 21-persistent-rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bvh.h"
#include "gpu.h"
#include "host_pages.h"
#include "stage.h"

#define FAR_PLANE 100.0f
#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

struct Sphere {
    float3 center;
    float radius;
    float3 color;
};

struct Light {
    float3 position;
    float3 color;
    float ambient, diffuse, specular;
    /* Below the square root of this, the specular cosine cannot change a bit (see the top). */
    float negligible_cosine_squared;
};

struct Camera {
    float3 origin;
    float3 background;      /* 0..255: what a ray that hits nothing sees */
    float3 background_unit; /* the same over 255, worked out once on the host */
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

/* a / b from y, the refined reciprocal of b: the last three steps of the GPU's own IEEE division
 * (the quotient, its remainder, the corrected quotient), as its fast path computes them. */
__device__ inline float quotient_refined(float a, float b, float y)
{
    const float q = fmaf(a, y, 0.0f);
    return fmaf(y, fmaf(q, -b, a), q);
}

/* Three quotients by the length, correctly rounded: the same bits as SPEC.md's three divisions
 * (docs/reference.md: same picture). On the GPU one reciprocal serves the three, where the
 * operands are in a range the division's fast path covers (see the top); elsewhere, and on the
 * host, three divisions. */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
#ifdef __CUDA_ARCH__
    const float smallest = fminf(fminf(fabsf(v.x), fabsf(v.y)), fabsf(v.z));
    if (length >= 0x1p-20f && length <= 0x1p100f && smallest >= length * 0x1p-60f) {
        float y0; /* the hardware's approximate reciprocal, as the division's first step */
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(length));
        const float y = fmaf(y0, fmaf(y0, -length, 1.0f), y0);
        return make_float3(quotient_refined(v.x, length, y), quotient_refined(v.y, length, y),
                           quotient_refined(v.z, length, y));
    }
#endif
    return make_float3(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ inline float3 cap3(float3 v)
{
    return make_float3(fminf(v.x, 1.0f), fminf(v.y, 1.0f), fminf(v.z, 1.0f));
}

/* SPEC.md's output rule, as common/image.c applies it on the host: truncation toward zero,
 * clamped to 0..255, NaN to 0 (fmaxf returns the number when the other operand is NaN). */
__device__ inline unsigned char channel_from_float(float value)
{
    return (unsigned char)fminf(fmaxf(value, 0.0f), 255.0f);
}

/* size_t: three bytes per pixel pass 2^31 for images over 26754x26754. */
__device__ inline void store_pixel(unsigned char *framebuffer, int pixel, float3 colour)
{
    unsigned char *rgb = framebuffer + (size_t)3 * (size_t)pixel;
    rgb[0] = channel_from_float(colour.x);
    rgb[1] = channel_from_float(colour.y);
    rgb[2] = channel_from_float(colour.z);
}

/* ---- the scene: the light and the camera in constant memory, the spheres and the tree in global
 * memory ----------------------------------------------------------------------------------- */

__constant__ Light constant_light;
__constant__ Camera constant_camera;

/* What the kernel reads of the scene, all in global memory: the spheres, two 16-byte views of
 * them (centre and radius squared; oc and k from the camera), and the hierarchy (nodes, and the
 * sphere indices leaf after leaf). */
struct Scene {
    const Sphere *spheres;
    const float4 *geometry;    /* per sphere: centre x, y, z and the radius squared */
    const float4 *from_camera; /* per sphere: oc = camera - centre, and k = oc.oc - r^2 */
    const struct spec_bvh_node *nodes;
    const int *order;
};

/* ---- rays and spheres --------------------------------------------------------------------- */

/* Returns true and the nearest positive distance along the ray in *t, given oc = origin - centre,
 * k = oc.oc - r^2 and the ray's a = d.d. half_b is b / 2 and quarter_discriminant is the
 * discriminant / 4: the same roundings scaled by powers of two (see the top of this file). */
__device__ bool has_intersection(float3 oc, float k, float3 direction, float a, float *t)
{
    const float half_b = dot3(direction, oc);
    /* The origin outside the sphere (k > 0) and its centre behind (d.oc > 0): both roots are
     * negative. In floats too: then disc <= fl(h^2), and sqrt(fl(h^2)) = h exactly, so the
     * root is at most h and t1 <= 0 (h above 1e-18 keeps h^2 clear of underflow). */
    if (k > 0.0f && half_b > 1e-18f) {
        return false;
    }
    const float quarter_discriminant = half_b * half_b - a * k;
    if (quarter_discriminant < 0.0f) {
        return false;
    }
    const float root = sqrtf(quarter_discriminant);
    const float t0 = (-half_b - root) / a;
    /* t0 <= t1 whenever both are numbers (root >= 0, a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    if (t0 > 0.0f) {
        *t = t0;
        return true;
    }
    *t = (-half_b + root) / a;
    return *t > 0.0f;
}

/* oc and k of a ray from any origin: one 16-byte load, three subtractions and a dot product. */
__device__ inline float3 from_sphere(float3 origin, float4 geometry, float *k)
{
    const float3 oc =
        make_float3(origin.x - geometry.x, origin.y - geometry.y, origin.z - geometry.z);
    *k = dot3(oc, oc) - geometry.w;
    return oc;
}


/* ---- the hierarchy: a box skipped is every sphere inside it skipped ----------------------- */

/* What a walk of the tree looks for: the nearest sphere of a ray from the camera (its oc and k
 * read per sphere), the nearest of a ray from a surface point, or any sphere that shadows. */
enum search { NEAREST_FROM_CAMERA, NEAREST, ANY_BLOCKER };

/* Walks the tree for a ray (direction d, a = d.d, inverse = 1 / d per component) with a stack of
 * node indices: a node whose box the ray cannot enter before the best t so far is skipped with
 * everything inside (spec_bvh_may_hit widens each box by what rounding can reach: the image's
 * bits rest on it, common/spec_bvh.h); a leaf's spheres are tested. The nearest hit is the
 * smallest (t, index), as SPEC.md's loop in file order finds it; a blocker ends the walk. Returns
 * the sphere (or -1) and its t in *distance. Inlined with `what` known, each call keeps only
 * its own branches. */
__device__ __forceinline__ int search_tree(const Scene *scene, enum search what, float3 origin,
                                           float3 direction, float a, float *distance)
{
    const float3 inverse = make_float3(1.0f / direction.x, 1.0f / direction.y, 1.0f / direction.z);
    const struct spec_vec3 from = spec_v3(origin.x, origin.y, origin.z);
    const struct spec_vec3 per_unit = spec_v3(inverse.x, inverse.y, inverse.z);
    float best = what == ANY_BLOCKER ? INFINITY : FAR_PLANE;
    int hit = -1;
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node node = scene->nodes[stack[--top]];
        if (!spec_bvh_may_hit(&node, from, per_unit, best)) {
            continue;
        }
        if (node.count == 0) {
            stack[top++] = node.first + 1;
            stack[top++] = node.first;
            continue;
        }
        for (int k = 0; k < node.count; k++) {
            const int s = __ldg(&scene->order[node.first + k]);
            float3 oc;
            float c, t;
            if (what == NEAREST_FROM_CAMERA) {
                const float4 from_camera = __ldg(&scene->from_camera[s]);
                oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
                c = from_camera.w;
            } else {
                oc = from_sphere(origin, __ldg(&scene->geometry[s]), &c);
            }
            if (!has_intersection(oc, c, direction, a, &t)) {
                continue;
            }
            if (what == ANY_BLOCKER) {
                if (t > 1e-6f) {
                    *distance = t;
                    return s;
                }
            } else if (t < best || (t == best && hit >= 0 && s < hit)) {
                best = t;
                hit = s;
            }
        }
    }
    *distance = best;
    return hit;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ inline float shadow_factor(const Scene *scene, float3 origin, float3 direction)
{
    float t;
    return search_tree(scene, ANY_BLOCKER, origin, direction, dot3(direction, direction), &t) >= 0
               ? 0.35f
               : 1.0f;
}

/* The image plane's x of every column and y of every row (width + height threads), with the
 * arithmetic each pixel used: the same bits, two divisions per column and row, not per pixel. */
__global__ void plane_kernel(float *plane_x, float *plane_y, int width, int height)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < width) {
        plane_x[index] = 2.0f * ((float)index + 0.5f) / (float)(width - 1) - 1.0f;
    } else if (index < width + height) {
        const int j = index - width;
        plane_y[j] = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
    }
}

/* Renders pixel (i, j). */
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
     * only where it can change a bit (see the top): the rest keep 0, as the squarings give. */
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
    const float shadow = shadow_factor(scene, lifted, sub3(light->position, lifted));

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
        const float reflection_shadow = shadow_factor(scene, q_lifted, q_to_light);
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

/* Renders the rows first_row .. end_row - 1 of the image (one band): the block's row of blocks
 * (blockIdx.y counts from first_row), then every gridDim.y-th row of blocks below it. */
__global__ void __launch_bounds__(BLOCK_THREADS_MAX, BLOCKS_PER_SM_MIN)
    render_kernel(unsigned char *framebuffer, Scene scene, const float *plane_x,
                  const float *plane_y, int width, int height, int first_row, int end_row)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= width) {
        return;
    }
    for (int j = first_row + blockIdx.y * blockDim.y + threadIdx.y; j < end_row;
         j += gridDim.y * blockDim.y) {
        render_pixel(framebuffer, &scene, plane_x, plane_y, width, height, i, j);
    }
}

/* ---- the host side: allocate, copy, launch, copy back, free; every phase timed ------------ */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    Scene scene; /* device pointers */
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* The scene's arrays on the host, in pinned memory, and the hierarchy built over them. */
struct host_scene {
    Sphere *spheres;
    float4 *geometry, *from_camera;
    struct bvh bvh;
    int sphere_count;
};

/* The hierarchy, built on the host every frame (an interactive renderer's spheres move): timed
 * as the build phase. */
static void build_tree(struct host_scene *host, const struct scene *scene, struct report *report)
{
    double start = timer_now_us();
    bvh_free(&host->bvh);
    if (bvh_build(scene->spheres, scene->sphere_count, &host->bvh)) {
        fprintf(stderr, "%s: error: out of host memory for the hierarchy of %d spheres\n",
                stage_manifest.name, scene->sphere_count);
        exit(1);
    }
    report_phase_since(report, PHASE_BUILD, start);
}

/* The scene and its hierarchy to the GPU (an interactive renderer would change them between
 * frames); returns the bytes copied. */
static size_t upload_scene(const struct host_scene *host, const Light *light, const Camera *camera,
                           const Scene *device)
{
    const size_t n = (size_t)host->sphere_count;
    const size_t node_bytes = (size_t)host->bvh.node_count * sizeof(struct spec_bvh_node);
    CUDA_CHECK(cudaMemcpy((void *)device->spheres, host->spheres, n * sizeof(Sphere),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->geometry, host->geometry, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->from_camera, host->from_camera, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->nodes, host->bvh.nodes, node_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->order, host->bvh.order, n * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    return n * (sizeof(Sphere) + 2 * sizeof(float4) + sizeof(int)) + node_bytes + sizeof(Light) +
           sizeof(Camera);
}

/* Launches every band's kernel and copy on its stream; returns the number of bands. */
static int launch_bands(const struct frame_resources *frame, dim3 threads, int width, int height)
{
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    /* Recorded in the legacy default stream, which the streams created above wait for; so do
     * the image-plane tables, launched there too. */
    CUDA_CHECK(cudaEventRecord(frame->bands_start, 0));
    const int plane_threads = 256;
    plane_kernel<<<(width + height + plane_threads - 1) / plane_threads, plane_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
        const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
        dim3 blocks((width + threads.x - 1) / threads.x, 1);
        blocks.y = frame->resident_blocks / blocks.x + 1;
        blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
        render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->scene,
                                                      frame->plane_x, frame->plane_y, width,
                                                      height, first_row, end_row);
        CUDA_CHECK_LAUNCH("render_kernel");
        CUDA_CHECK(cudaEventRecord(frame->band_rendered[b], stream));
        /* The copy waits for this band's kernel, and no kernel waits for it. */
        CUDA_CHECK(cudaStreamWaitEvent(frame->copy_stream, frame->band_rendered[b], 0));
        CUDA_CHECK(cudaMemcpyAsync(frame->framebuffer + (size_t)first_row * row_bytes,
                                   frame->device_framebuffer + (size_t)first_row * row_bytes,
                                   (size_t)(end_row - first_row) * row_bytes,
                                   cudaMemcpyDeviceToHost, frame->copy_stream));
    }
    return bands;
}

/* Each copy waits for its band's kernel, so once the copies are done, so is every band. */
static void wait_for_copies(const struct frame_resources *frame)
{
    CUDA_CHECK(cudaStreamSynchronize(frame->copy_stream));
}

static float3 float3_from(struct spec_vec3 v)
{
    return make_float3(v.x, v.y, v.z);
}

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};

extern "C" void stage_render(struct render_job *job)
{
    const struct scene *scene = job->scene;
    struct report *report = job->report;
    int width = job->width, height = job->height;
    size_t pixels = (size_t)width * (size_t)height;
    size_t framebuffer_bytes = pixels * 3; /* 8-bit RGB */
    const size_t n = (size_t)scene->sphere_count;

    double start = timer_now_us();
    struct frame_resources frame;
    size_t framebuffer_mapped_bytes;
    unsigned char *framebuffer =
        (unsigned char *)host_pages_map(framebuffer_bytes, &framebuffer_mapped_bytes);
    frame.framebuffer = framebuffer;
    if (!framebuffer) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the frame buffer (%zu bytes) failed\n",
                stage_manifest.name, framebuffer_bytes);
        exit(1);
    }
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_map", start);
    start = timer_now_us();
    host_pages_touch(framebuffer, framebuffer_mapped_bytes, 0);
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_touch", start);
    start = timer_now_us();
    CUDA_CHECK(cudaHostRegister(framebuffer, framebuffer_mapped_bytes, cudaHostRegisterDefault));
    report_part_since(report, PHASE_HOST_ALLOCATION, "host_register", start);
    start = timer_now_us();
    struct host_scene host = {};
    host.sphere_count = scene->sphere_count;
    CUDA_CHECK(cudaMallocHost((void **)&host.spheres, n * sizeof(Sphere)));
    Sphere *spheres = host.spheres;
    for (int s = 0; s < scene->sphere_count; s++) {
        spheres[s].center = float3_from(scene->spheres[s].centre);
        spheres[s].radius = scene->spheres[s].radius;
        spheres[s].color = float3_from(scene->spheres[s].colour);
    }
    Light *light;
    CUDA_CHECK(cudaMallocHost((void **)&light, sizeof(Light)));
    light->position = float3_from(scene->light_position);
    light->color = float3_from(scene->light_colour);
    light->ambient = scene->ambient;
    light->diffuse = scene->diffuse;
    light->specular = scene->specular;
    Camera *camera;
    CUDA_CHECK(cudaMallocHost((void **)&camera, sizeof(Camera)));
    camera->origin = float3_from(scene->camera);
    camera->background = float3_from(scene->background);
    camera->background_unit = make_float3(camera->background.x / 255.0f,
                                          camera->background.y / 255.0f,
                                          camera->background.z / 255.0f);
    /* The specular term ks s^32 c must stay under half an ulp of the lighting, which is at least
     * the ambient term a c (ulp(x) > x / 2^24): s^32 < a / ks / 2^25, taken 4 times smaller, and
     * 0.97 of it squared for the test's rounding. Below 0.03 the 32nd power is 0 in floats
     * whatever the scene; that cutoff serves where a / ks is tiny or zero. */
    double cutoff = 0.03;
    if (light->specular > 0.0f && light->ambient >= 0x1p-100f * light->specular) {
        const double derived = pow((double)light->ambient / light->specular * 0x1p-27, 1.0 / 32);
        cutoff = derived > cutoff ? derived : cutoff;
    }
    light->negligible_cosine_squared = (float)(0.97 * cutoff * cutoff);
    /* The per-sphere constants, with the kernel's arithmetic (the host code is built without
     * fused multiply-add too, so each rounds the same). */
    CUDA_CHECK(cudaMallocHost((void **)&host.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost((void **)&host.from_camera, n * sizeof(float4)));
    for (int s = 0; s < scene->sphere_count; s++) {
        const float radius_squared = spheres[s].radius * spheres[s].radius;
        const float3 oc = sub3(camera->origin, spheres[s].center);
        host.geometry[s] = make_float4(spheres[s].center.x, spheres[s].center.y,
                                       spheres[s].center.z, radius_squared);
        host.from_camera[s] = make_float4(oc.x, oc.y, oc.z, dot3(oc, oc) - radius_squared);
    }
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    CUDA_CHECK(cudaMalloc((void **)&frame.device_framebuffer, framebuffer_bytes));
    /* The tree has at most 2n - 1 nodes (bvh.h). */
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.spheres, n * sizeof(Sphere)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.from_camera, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.nodes, 2 * n * sizeof(struct spec_bvh_node)));
    CUDA_CHECK(cudaMalloc((void **)&frame.scene.order, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_x, (size_t)width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame.plane_y, (size_t)height * sizeof(float)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame.copy_stream));
    int device, multiprocessors, blocks_per_multiprocessor;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_multiprocessor, render_kernel, job->block_x * job->block_y, 0));
    frame.resident_blocks = multiprocessors * blocks_per_multiprocessor;
    CUDA_CHECK(cudaEventCreate(&frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    build_tree(&host, scene, report);
    start = timer_now_us();
    report->bytes_to_device += upload_scene(&host, light, camera, &frame.scene);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    dim3 threads(job->block_x, job->block_y);
    start = timer_now_us();
    int bands = launch_bands(&frame, threads, width, height);
    /* The kernel phase: until the last band is rendered (copies already under way inside it). */
    float kernels_ms = 0;
    for (int b = 0; b < bands; b++) {
        CUDA_CHECK(cudaEventSynchronize(frame.band_rendered[b]));
        float band_ms;
        CUDA_CHECK(cudaEventElapsedTime(&band_ms, frame.bands_start, frame.band_rendered[b]));
        kernels_ms = band_ms > kernels_ms ? band_ms : kernels_ms;
    }
    report_phase_since(report, PHASE_KERNEL, start);
    report->kernel_event_us = kernels_ms * 1000.0;

    /* The copy phase: what is left of the copies once every band is rendered. */
    start = timer_now_us();
    wait_for_copies(&frame);
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host += framebuffer_bytes;
    /* Asked after the copies, so that the copy phase does not include it. */
    gpu_kernel_resources(report, (const void *)render_kernel, threads.x * threads.y, 0);

    /* Steady state: frames 2..N reuse everything above, the tree built again each frame; each
     * is timed whole on the CPU clock. */
    if (job->frames > 1) {
        double frames_us = 0, fastest_us = 0;
        struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
        report_init(&steady, report->stage);
        for (int f = 1; f < job->frames; f++) {
            double frame_start = timer_now_us();
            build_tree(&host, scene, &steady);
            upload_scene(&host, light, camera, &frame.scene);
            launch_bands(&frame, threads, width, height);
            wait_for_copies(&frame);
            double frame_us = timer_now_us() - frame_start;
            frames_us += frame_us;
            fastest_us = f == 1 || frame_us < fastest_us ? frame_us : fastest_us;
        }
        report_metric(report, "frames", job->frames, "frames");
        report_metric(report, "steady_frame", frames_us / (job->frames - 1), "us");
        report_metric(report, "steady_frame_min", fastest_us, "us");
    }

    start = timer_now_us();
    CUDA_CHECK(cudaFree(frame.device_framebuffer));
    CUDA_CHECK(cudaFree((void *)frame.scene.spheres));
    CUDA_CHECK(cudaFree((void *)frame.scene.geometry));
    CUDA_CHECK(cudaFree((void *)frame.scene.from_camera));
    CUDA_CHECK(cudaFree((void *)frame.scene.nodes));
    CUDA_CHECK(cudaFree((void *)frame.scene.order));
    CUDA_CHECK(cudaFree(frame.plane_x));
    CUDA_CHECK(cudaFree(frame.plane_y));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame.streams[s]));
    }
    CUDA_CHECK(cudaStreamDestroy(frame.copy_stream));
    CUDA_CHECK(cudaEventDestroy(frame.bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame.band_rendered[b]));
    }
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    render_job_frame_ready_rgb8(job, framebuffer);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(framebuffer));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(framebuffer, framebuffer_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
    start = timer_now_us();
    CUDA_CHECK(cudaFreeHost(host.spheres));
    CUDA_CHECK(cudaFreeHost(light));
    CUDA_CHECK(cudaFreeHost(camera));
    CUDA_CHECK(cudaFreeHost(host.geometry));
    CUDA_CHECK(cudaFreeHost(host.from_camera));
    bvh_free(&host.bvh);
    report_phase_since(report, PHASE_HOST_FREE, start);
}
