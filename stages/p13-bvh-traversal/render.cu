/*
 * Stage p13, a bounding volume hierarchy: every ray finds its sphere through a tree of boxes.
 *
 * Until now each segment of a path tested every sphere of the scene, read from constant memory,
 * which holds at most 1,024 of them: the time of a ray grew with the sphere count. Here the
 * spheres and their materials live in global memory, and a hierarchy of boxes over them is built
 * on the host before the launch (the main chain's, common/bvh.c: top down by the surface area
 * heuristic, leaves of at most four spheres; timed as the build phase) and uploaded with them.
 * A ray walks the tree from the root with a small stack: a box it cannot enter before its best
 * hit so far is skipped with everything inside, so a ray tests the spheres of a few leaves
 * instead of all n. The scene may hold 100,000 spheres, the format's limit.
 *
 * The image keeps its bits. The tree meets spheres in another order than the file's, so the
 * nearest hit is the smallest (t, index): among equal t the first sphere in file order wins, as
 * the track's loop decides (pt_closest_hit_in_order). And a box is skipped only when no sphere
 * inside can pass pt_sphere_hit's rounded test: spec_bvh_may_hit (common/spec_bvh.h) widens each
 * box, for each ray, by more than the rounding can reach.
 *
 * Builds on p12-host-work-behind-render.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "host_pages.h"
#include "pathtrace/pt_bvh.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128

const struct stage_info stage_info = {
    PT_SCENE_MAX_SPHERES,
    "the scene format",
    BLOCK_THREADS, 1, /* threads per block of every kernel */
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__ */
};

/* What the kernel reads of the scene, all in global memory: the spheres, their materials, and the
 * hierarchy (its nodes, and the sphere indices leaf after leaf). */
struct scene_on_gpu {
    const struct pt_sphere *spheres;
    const struct pt_material *materials;
    const struct spec_bvh_node *nodes;
    const int *order;
};

struct ray {
    struct spec_vec3 origin, direction;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

/* A path in flight: which sample of which pixel, where it is, what it carries. */
struct path {
    unsigned pixel, frame;
    int segment;
    struct ray ray;
    struct spec_vec3 attenuation;
};

/* Walks the tree with a stack of node indices: a node whose box the ray cannot enter before the
 * best t so far is skipped with everything inside (spec_bvh_may_hit widens each box by what
 * rounding can reach: the image's bits rest on it); a leaf's spheres are tested, and a sphere
 * wins on (t, index), as the loop over every sphere in file order decides. */
__device__ static struct hit closest_hit(struct ray ray, const struct scene_on_gpu *scene)
{
    struct hit hit;
    hit.t = PT_T_FAR;
    hit.sphere = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(ray.direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        struct spec_bvh_node node = scene->nodes[stack[--top]];
        if (!spec_bvh_may_hit(&node, ray.origin, inverse, hit.t))
            continue;
        if (node.count == 0) {
            stack[top++] = node.first + 1;
            stack[top++] = node.first;
            continue;
        }
        for (int k = 0; k < node.count; ++k) {
            int s = scene->order[node.first + k];
            float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
            if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
                hit.t = t;
                hit.sphere = s;
            }
        }
    }
    return hit;
}

/* Path q: its camera ray. */
__device__ static struct path start_path(unsigned long long q, int width, int height,
                                         struct spec_vec3 camera)
{
    unsigned long long pixels = (unsigned long long)width * (unsigned long long)height;
    struct path path;
    path.pixel = (unsigned)(q % pixels);
    path.frame = (unsigned)(q / pixels);
    path.segment = 0;
    pt_camera_ray(camera, width, height, (int)(path.pixel % (unsigned)width),
                  (int)(path.pixel / (unsigned)width), path.frame, &path.ray.origin,
                  &path.ray.direction);
    path.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    return path;
}

__device__ static void add_sample(unsigned long long *sums, unsigned pixel, struct spec_vec3 colour)
{
    atomicAdd(&sums[3 * (size_t)pixel + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)pixel + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)pixel + 2], (unsigned long long)pt_fixed(colour.z));
}

/* One segment of the path: returns 1 while it goes on; at its end adds what it brought back. */
__device__ static int extend_path(struct path *path, unsigned long long *sums,
                                  struct spec_vec3 sky, const struct scene_on_gpu *scene,
                                  int max_depth)
{
    struct hit hit = closest_hit(path->ray, scene);
    if (hit.sphere < 0) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, sky));
        return 0;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(scene->materials[hit.sphere], scene->spheres[hit.sphere], path->ray.origin,
                   path->ray.direction, hit.t, path->pixel, path->frame, path->segment, &scatter);
    if (scatter.event == PT_EMITTED) {
        add_sample(sums, path->pixel, spec_mul(path->attenuation, scatter.emitted));
        return 0;
    }
    /* Absorbed, or still going after the last segment: it brings nothing, nothing to add. */
    if (scatter.event == PT_ABSORBED || path->segment == max_depth - 1)
        return 0;
    path->attenuation = spec_mul(path->attenuation, scatter.attenuation);
    path->ray.origin = scatter.origin;
    path->ray.direction = scatter.direction;
    path->segment++;
    return 1;
}

/* Every thread loops: a thread without a path takes the next one, then every thread extends
 * its path by one segment. A thread leaves when the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct scene_on_gpu scene, int width, int height, int samples,
                                  int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    for (;;) {
        if (!active) {
            unsigned long long q = atomicAdd(next_path, 1ULL);
            if (q >= total)
                return;
            path = start_path(q, width, height, camera);
            active = 1;
        }
        active = extend_path(&path, sums, sky, &scene, max_depth);
    }
}

/* Channel c of the image from its sum: what the host did in p09 (pt_render_job_sums_ready). */
__global__ void resolve_kernel(unsigned char *rgb, const unsigned long long *sums,
                               size_t channels, int samples)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c < channels)
        rgb[c] = pt_pixel_channel(sums[c], samples);
}

/* What the kernels work on, on the GPU: the sums, the counter of paths handed out, the 8-bit
 * image made from the sums, and the scene with its hierarchy. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
    unsigned char *rgb; /* 3 per pixel */
    struct scene_on_gpu scene;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count, int node_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->rgb, (size_t)count * 3));
    size_t n = (size_t)sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&d->scene.spheres, n * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.materials, n * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.nodes,
                          (size_t)node_count * sizeof(struct spec_bvh_node)));
    CUDA_CHECK(cudaMalloc((void **)&d->scene.order, n * sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
    CUDA_CHECK(cudaFree(d->rgb));
    CUDA_CHECK(cudaFree((void *)d->scene.spheres));
    CUDA_CHECK(cudaFree((void *)d->scene.materials));
    CUDA_CHECK(cudaFree((void *)d->scene.nodes));
    CUDA_CHECK(cudaFree((void *)d->scene.order));
}

/* The hierarchy over the scene's spheres, built on the host: timed as the build phase. */
static void build_tree(const struct pt_world *world, struct bvh *bvh, struct report *report)
{
    double start = timer_now_us();
    if (pt_bvh_build(world->spheres, world->sphere_count, bvh)) {
        fprintf(stderr, "%s: error: out of host memory for the hierarchy of %d spheres\n",
                cuda_check_program, world->sphere_count);
        exit(1);
    }
    report_phase_since(report, PHASE_BUILD, start);
}

/* The scene and its hierarchy in; returns the bytes copied. */
static size_t paths_upload_scene(const struct device_paths *d, const struct pt_world *world,
                                 const struct bvh *bvh)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    size_t node_bytes = (size_t)bvh->node_count * sizeof(struct spec_bvh_node);
    size_t order_bytes = (size_t)world->sphere_count * sizeof(int);
    CUDA_CHECK(cudaMemcpy((void *)d->scene.spheres, world->spheres, sphere_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.materials, world->materials, material_bytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.nodes, bvh->nodes, node_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)d->scene.order, bvh->order, order_bytes,
                          cudaMemcpyHostToDevice));
    return sphere_bytes + material_bytes + node_bytes + order_bytes;
}

/* As many blocks as the GPU holds at once: every thread resident for the whole render. */
static int resident_blocks(const void *kernel)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK_THREADS, 0));
    return sms * (per_sm > 0 ? per_sm : 1);
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t channels = (size_t)count * 3;

    struct bvh bvh;
    build_tree(world, &bvh, report);

    double start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, count, world->sphere_count, bvh.node_count);
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world, &bvh);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)persistent_kernel, BLOCK_THREADS, 0);
    int blocks = resident_blocks((const void *)persistent_kernel);
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    persistent_kernel<<<blocks, BLOCK_THREADS>>>(d.sums, d.next_path, world->camera, world->sky,
                                                 d.scene, job->width, job->height,
                                                 job->samples, job->max_depth);
    CUDA_CHECK_LAUNCH("persistent_kernel");
    int resolve_blocks = (int)((channels + BLOCK_THREADS - 1) / BLOCK_THREADS);
    resolve_kernel<<<resolve_blocks, BLOCK_THREADS>>>(d.rgb, d.sums, channels, job->samples);
    CUDA_CHECK_LAUNCH("resolve_kernel");
    kernel_timer_launches_done(&timer); /* kernel_events: the GPU's work, not the host's below */

    /* While the GPU renders: the image's pages (p11's host allocation), each step timed. */
    start = timer_now_us();
    size_t rgb_mapped_bytes;
    unsigned char *rgb = (unsigned char *)host_pages_map(channels, &rgb_mapped_bytes);
    if (!rgb) {
        fprintf(stderr,
                "%s: error: out of host memory: mmap of the 8-bit image (%zu bytes) failed\n",
                cuda_check_program, channels);
        exit(1);
    }
    double now = timer_now_us();
    report_metric(report, "host_map", now - start, "us");
    start = now;
    host_pages_touch(rgb, rgb_mapped_bytes, 0);
    now = timer_now_us();
    report_metric(report, "host_touch", now - start, "us");
    start = now;
    CUDA_CHECK(cudaHostRegister(rgb, rgb_mapped_bytes, cudaHostRegisterDefault));
    report_metric(report, "host_register", timer_now_us() - start, "us");
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(rgb, d.rgb, channels, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = channels;

    pt_render_job_frame_ready_rgb8(job, rgb);

    start = timer_now_us();
    paths_free(&d);
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    bvh_free(&bvh);
    report_part_since(report, PHASE_HOST_FREE, "bvh_free", start);

    start = timer_now_us();
    CUDA_CHECK(cudaHostUnregister(rgb));
    report_part_since(report, PHASE_HOST_FREE, "host_unregister", start);
    start = timer_now_us();
    host_pages_unmap(rgb, rgb_mapped_bytes);
    report_part_since(report, PHASE_HOST_FREE, "host_unmap", start);
}
