/*
 * Stage p07a, device compaction (a side stage): the paths in two streams that the device
 * refills and compacts itself (seed 002, "device compaction", its StreamingMK).
 *
 * In p07 every intersection and scatter kernel covers all the frame's paths, and a thread whose
 * path has ended reads its flag and leaves: after a few segments most warps hold a few live
 * paths among many ended ones, and each frame waits for its longest path. Here the paths live in
 * two streams in global memory, an input and an output. A regeneration kernel fills the input
 * stream's empty slots with new paths from a global counter (path q is sample q / pixels of
 * pixel q % pixels, as in p09); the intersection and scatter kernels extend its paths by one
 * segment, and the scatter kernel writes each path that goes on to the output stream, at a slot
 * taken with an atomicAdd on that stream's count: the compaction. Then the streams swap. A path
 * that ends adds its sample to its pixel's 64-bit sums with atomics, which integer sums allow in
 * any order (common/pathtrace/SPEC.md section 4): the image keeps p07's bits.
 *
 * Every count stays in device memory: the grids are sized for a stream's capacity and threads
 * past the live count leave at once, so the host never waits for a count. It enqueues the
 * iterations in batches, one batch ahead of the GPU, and learns when to stop from one word the
 * last kernel of each batch writes into mapped host memory.
 *
 * Builds on p07-constant-scene.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "pathtrace/pt_stage.h"

#define BLOCK_THREADS 128
#define MAX_SPHERES 1024 /* 16 + 20 bytes each: 36 KiB of the 64 KiB of constant memory */
#define STREAM_WAVES 4      /* a stream's slots, in GPU-fulls of threads: stream_capacity() */
#define BATCH_ITERATIONS 4  /* iterations enqueued between two looks at the work left */

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

/* A path in flight. In p07 a thread's index was its pixel, and the frame and the segment were
 * the launch's; a stream mixes pixels, samples and depths, so each path carries its own. Its
 * colour is never stored: the path adds it to the sums when it ends. */
struct path {
    unsigned pixel, frame;
    int segment;
    struct ray ray;
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

/* A stream of paths, one array per field as in p07: slots 0 to its count - 1 hold paths. */
struct path_stream {
    struct spec_vec3 *origin, *direction, *attenuation;
    unsigned *pixel, *frame;
    int *segment;
};

/* The hits of the input stream's paths, slot by slot. */
struct hit_arrays {
    float *t;
    int *sphere;
};

__device__ static struct ray load_ray(struct path_stream paths, int slot)
{
    struct ray ray;
    ray.origin = paths.origin[slot];
    ray.direction = paths.direction[slot];
    return ray;
}

__device__ static struct path load_path(struct path_stream paths, int slot)
{
    struct path path;
    path.pixel = paths.pixel[slot];
    path.frame = paths.frame[slot];
    path.segment = paths.segment[slot];
    path.ray = load_ray(paths, slot);
    path.attenuation = paths.attenuation[slot];
    return path;
}

__device__ static void store_path(struct path_stream paths, int slot, struct path path)
{
    paths.pixel[slot] = path.pixel;
    paths.frame[slot] = path.frame;
    paths.segment[slot] = path.segment;
    paths.origin[slot] = path.ray.origin;
    paths.direction[slot] = path.ray.direction;
    paths.attenuation[slot] = path.attenuation;
}

/* The streams' bookkeeping, in device memory: only the kernels read and write it, so no launch
 * waits for the host to learn a count. A kernel's blocks run in any order, so a word one thread
 * writes is never read by the kernel that writes it, only by later ones: hence a queue head per
 * stream, each written by the regeneration of the other. */
struct stream_counters {
    int count[2];                    /* the paths in stream 0 and in stream 1 */
    unsigned long long next_path[2]; /* the queue: the first path not started, as the
                                        regeneration of stream 0 or 1 finds it */
    int live;                        /* the paths in the stream being extended */
    int iterations_with_work;        /* iterations whose streams held any path (a metric) */
};

/* Fills the empty slots of stream `stream` (its count up to the capacity) from the queue, then
 * it is the next iteration's input. Thread t starts path next_path + t in slot count + t. */
__global__ void regenerate_kernel(struct path_stream paths, struct stream_counters *counters,
                                  int stream, int capacity, unsigned long long total_paths,
                                  struct spec_vec3 camera, int width, int height, int *work_left)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int count = counters->count[stream];
    unsigned long long queue_head = counters->next_path[stream];
    unsigned long long queued = total_paths - queue_head;
    int taken = (unsigned long long)(capacity - count) < queued ? capacity - count : (int)queued;
    if (t == 0) {
        counters->live = count + taken;
        counters->next_path[1 - stream] = queue_head + taken;
        counters->count[1 - stream] = 0; /* the next output starts empty */
        counters->iterations_with_work += count + taken > 0;
        if (work_left) /* the batch's last kernel: the host reads this */
            *work_left = count + taken > 0;
    }
    if (t >= taken)
        return;
    unsigned long long q = queue_head + (unsigned long long)t;
    unsigned long long pixels = (unsigned long long)width * (unsigned long long)height;
    int p = (int)(q % pixels);
    struct path path;
    path.pixel = (unsigned)p;
    path.frame = (unsigned)(q / pixels);
    path.segment = 0;
    pt_camera_ray(camera, width, height, p % width, p / width, path.frame, &path.ray.origin,
                  &path.ray.direction);
    path.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    store_path(paths, count + t, path);
}

__global__ void intersect_kernel(struct path_stream paths, struct hit_arrays hits,
                                 const struct stream_counters *counters, int sphere_count)
{
    int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= counters->live)
        return;
    const struct ray ray = load_ray(paths, slot);
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
    hits.t[slot] = hit.t;
    hits.sphere[slot] = hit.sphere;
}

/* Samples of one pixel may end in the same launch: atomics, in any order the same sums. */
__device__ static void add_sample(unsigned long long *sums, unsigned pixel, struct spec_vec3 colour)
{
    atomicAdd(&sums[3 * (size_t)pixel + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)pixel + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)pixel + 2], (unsigned long long)pt_fixed(colour.z));
}

/* Extends the paths of stream `input` by their segment: a path that ends adds what it brought
 * back to its pixel; one that goes on is written to stream 1 - input, at the slot its count's
 * atomicAdd hands out, so the paths that go on end up side by side. */
__global__ void scatter_kernel(struct path_stream paths, struct hit_arrays hits,
                               struct path_stream next_paths, struct stream_counters *counters,
                               int input, unsigned long long *sums, struct spec_vec3 sky,
                               int max_depth)
{
    int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= counters->live)
        return;
    struct path path = load_path(paths, slot);
    struct hit hit;
    hit.t = hits.t[slot];
    hit.sphere = hits.sphere[slot];
    if (hit.sphere < 0) {
        add_sample(sums, path.pixel, spec_mul(path.attenuation, sky));
        return;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(c_materials[hit.sphere], c_spheres[hit.sphere], path.ray.origin,
                   path.ray.direction, hit.t, path.pixel, path.frame, path.segment, &scatter);
    if (scatter.event == PT_EMITTED) {
        add_sample(sums, path.pixel, spec_mul(path.attenuation, scatter.emitted));
        return;
    }
    /* Absorbed, or still going after the last segment: it brings nothing, nothing to add. */
    if (scatter.event == PT_ABSORBED || path.segment == max_depth - 1)
        return;
    path.attenuation = spec_mul(path.attenuation, scatter.attenuation);
    path.ray.origin = scatter.origin;
    path.ray.direction = scatter.direction;
    path.segment++;
    /* The compaction. The compiler makes this one atomicAdd per warp (CUDA 13's SASS for sm_90:
     * VOTEU.ANY, POPC, one ATOMG, SHFL): the lanes here count themselves, one adds the count,
     * each takes the base plus its rank among them, the prefix sum of seed 002's compaction. */
    int next_slot = atomicAdd(&counters->count[1 - input], 1);
    store_path(next_paths, next_slot, path);
}

/* What the kernels work on, on the GPU. */
struct device_paths {
    struct path_stream streams[2]; /* in turn the input and the output of an iteration */
    struct hit_arrays hits;
    struct stream_counters *counters;
    unsigned long long *sums; /* 3 per pixel */
    int capacity;             /* the slots of each stream */
};

static void stream_alloc(struct path_stream *s, int capacity)
{
    size_t n = (size_t)capacity;
    CUDA_CHECK(cudaMalloc((void **)&s->origin, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->direction, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->attenuation, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->pixel, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&s->frame, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&s->segment, n * sizeof(int)));
}

static void stream_free(struct path_stream *s)
{
    CUDA_CHECK(cudaFree(s->origin));
    CUDA_CHECK(cudaFree(s->direction));
    CUDA_CHECK(cudaFree(s->attenuation));
    CUDA_CHECK(cudaFree(s->pixel));
    CUDA_CHECK(cudaFree(s->frame));
    CUDA_CHECK(cudaFree(s->segment));
}

static void paths_alloc(struct device_paths *d, int capacity, int pixels)
{
    d->capacity = capacity;
    stream_alloc(&d->streams[0], capacity);
    stream_alloc(&d->streams[1], capacity);
    CUDA_CHECK(cudaMalloc((void **)&d->hits.t, (size_t)capacity * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits.sphere, (size_t)capacity * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d->counters, sizeof(struct stream_counters)));
    CUDA_CHECK(cudaMemset(d->counters, 0, sizeof(struct stream_counters))); /* both empty */
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)pixels * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)pixels * 3 * sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    stream_free(&d->streams[0]);
    stream_free(&d->streams[1]);
    CUDA_CHECK(cudaFree(d->hits.t));
    CUDA_CHECK(cudaFree(d->hits.sphere));
    CUDA_CHECK(cudaFree(d->counters));
    CUDA_CHECK(cudaFree(d->sums));
}

/* The scene in; returns the bytes copied. */
static size_t paths_upload_scene(const struct pt_world *world)
{
    size_t sphere_bytes = (size_t)world->sphere_count * sizeof(struct pt_sphere);
    size_t material_bytes = (size_t)world->sphere_count * sizeof(struct pt_material);
    CUDA_CHECK(cudaMemcpyToSymbol(c_spheres, world->spheres, sphere_bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_materials, world->materials, material_bytes));
    return sphere_bytes + material_bytes;
}

/* Every grid covers a stream's capacity: only the device knows how many slots hold paths. */
static void launch_regenerate(const struct device_paths *d, const struct pt_world *world,
                              int stream, unsigned long long total_paths, int *work_left)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    regenerate_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[stream], d->counters, stream,
                                                 d->capacity, total_paths, world->camera,
                                                 world->width, world->height, work_left);
    CUDA_CHECK_LAUNCH("regenerate_kernel");
}

static void launch_intersect(const struct device_paths *d, const struct pt_world *world,
                             int input)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    intersect_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[input], d->hits, d->counters,
                                                world->sphere_count);
    CUDA_CHECK_LAUNCH("intersect_kernel");
}

static void launch_scatter(const struct device_paths *d, const struct pt_world *world, int input)
{
    int blocks = (d->capacity + BLOCK_THREADS - 1) / BLOCK_THREADS;
    scatter_kernel<<<blocks, BLOCK_THREADS>>>(d->streams[input], d->hits, d->streams[1 - input],
                                              d->counters, input, d->sums, world->sky,
                                              world->max_depth);
    CUDA_CHECK_LAUNCH("scatter_kernel");
}

/* A stream's slots. Every launch covers them all (threads past the live count leave at once),
 * so the capacity sets both the work of a full iteration and the cost of an empty one. It is
 * STREAM_WAVES times the threads the GPU holds at once running the scatter kernel (the one with
 * the most registers, the fewest resident threads): a full stream is four rounds of blocks on
 * every SM, so the last round of a launch, partly empty, costs at most a quarter of it, and the
 * launches of P paths of D segments number about 3 P D / capacity, plus the drain at the end.
 * Never more than all the paths: a small render has nothing to fill more slots with. */
static int stream_capacity(unsigned long long total_paths)
{
    int device, sms, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, (const void *)scatter_kernel, BLOCK_THREADS, 0));
    unsigned long long resident =
        (unsigned long long)sms * (unsigned long long)(blocks_per_sm > 0 ? blocks_per_sm : 1) *
        BLOCK_THREADS;
    unsigned long long capacity = STREAM_WAVES * resident;
    return (int)(capacity < total_paths ? capacity : total_paths);
}

/* BATCH_ITERATIONS iterations, then `done` recorded. An iteration extends the input stream's
 * paths by a segment into the output stream, refills the output from the queue and swaps the
 * two. The refill comes last so that the batch's last kernel knows whether the next iteration
 * has any path: it writes that into *work_left, host memory the host reads after `done`. */
static void enqueue_batch(const struct device_paths *d, const struct pt_world *world,
                          unsigned long long total_paths, int *input, int *work_left,
                          cudaEvent_t done)
{
    for (int i = 0; i < BATCH_ITERATIONS; ++i) {
        int output = 1 - *input;
        launch_intersect(d, world, *input);
        launch_scatter(d, world, *input);
        launch_regenerate(d, world, output, total_paths,
                          i == BATCH_ITERATIONS - 1 ? work_left : NULL);
        *input = output;
    }
    CUDA_CHECK(cudaEventRecord(done, 0));
}

/* A stream's arrays on the host, for the kernel benchmark's files (pt_record.h). */
static void host_stream_alloc(struct path_stream *s, int capacity)
{
    size_t n = (size_t)(capacity > 0 ? capacity : 1);
    s->origin = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->direction = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->attenuation = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->pixel = (unsigned *)host_alloc_or_exit(n * sizeof(unsigned), "paths");
    s->frame = (unsigned *)host_alloc_or_exit(n * sizeof(unsigned), "paths");
    s->segment = (int *)host_alloc_or_exit(n * sizeof(int), "paths");
}

static void host_stream_free(struct path_stream *s)
{
    free(s->origin);
    free(s->direction);
    free(s->attenuation);
    free(s->pixel);
    free(s->frame);
    free(s->segment);
}

static void stream_copy(struct path_stream to, struct path_stream from, int count,
                        enum cudaMemcpyKind kind)
{
    size_t n = (size_t)count;
    CUDA_CHECK(cudaMemcpy(to.origin, from.origin, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.direction, from.direction, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.attenuation, from.attenuation, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.pixel, from.pixel, n * sizeof(unsigned), kind));
    CUDA_CHECK(cudaMemcpy(to.frame, from.frame, n * sizeof(unsigned), kind));
    CUDA_CHECK(cudaMemcpy(to.segment, from.segment, n * sizeof(int), kind));
}

/* --record: the paths of frame 0 before segment `segment`, in the record's pixel order. The
 * render's streams mix samples and depths, so this pass of the same kernels renders frame 0
 * alone into streams that hold all its paths at once: after `segment` iterations every path
 * left is at that segment. Ended paths have added their colour to the sums, which are not
 * kept: the record's colour is 0 for them (the benchmark reads only the live paths). */
static void record_paths(const struct pt_render_job *job, int segment)
{
    const struct pt_world *world = &job->world;
    int pixels = job->width * job->height;
    struct device_paths d;
    paths_alloc(&d, pixels, pixels);
    paths_upload_scene(world);
    launch_regenerate(&d, world, 0, (unsigned long long)pixels, NULL);
    int input = 0;
    for (int s = 0; s < segment; ++s) {
        launch_intersect(&d, world, input);
        launch_scatter(&d, world, input);
        launch_regenerate(&d, world, 1 - input, (unsigned long long)pixels, NULL);
        input = 1 - input;
    }
    struct stream_counters counters;
    CUDA_CHECK(cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost));
    struct path_stream live;
    host_stream_alloc(&live, counters.live);
    stream_copy(live, d.streams[input], counters.live, cudaMemcpyDeviceToHost);

    struct pt_record record;
    if (pt_record_alloc(&record, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for --record\n", stage_manifest.name);
        exit(1);
    }
    for (int p = 0; p < pixels; ++p) {
        record.origin[p] = record.direction[p] = spec_v3(0.0f, 0.0f, 0.0f);
        record.colour[p] = record.attenuation[p] = spec_v3(0.0f, 0.0f, 0.0f);
        record.done[p] = 1;
    }
    for (int i = 0; i < counters.live; ++i) {
        unsigned p = live.pixel[i];
        record.origin[p] = live.origin[i];
        record.direction[p] = live.direction[i];
        record.attenuation[p] = live.attenuation[i];
        record.done[p] = 0;
    }
    record.sample = 0;
    record.segment = segment;
    record.max_depth = job->max_depth;
    char error[PT_RECORD_ERROR_BYTES];
    if (pt_record_write(job->record_dir, job->scene_path, &record, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(1);
    }
    pt_record_free(&record);
    host_stream_free(&live);
    paths_free(&d);
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);
    unsigned long long total_paths = (unsigned long long)count * (unsigned long long)job->samples;

    if (job->record_dir)
        record_paths(job, job->record_segment);

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    /* One word per batch parity, in pinned host memory the GPU writes directly (mapped): batch k
     * + 2, which reuses batch k's word, is enqueued only after the host has read it. */
    volatile int *work_left;
    CUDA_CHECK(cudaHostAlloc((void **)&work_left, 2 * sizeof(int), cudaHostAllocMapped));
    work_left[0] = work_left[1] = 1;
    int *device_work_left;
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&device_work_left, (void *)work_left, 0));
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, stream_capacity(total_paths), count);
    cudaEvent_t batch_done[2];
    CUDA_CHECK(cudaEventCreate(&batch_done[0]));
    CUDA_CHECK(cudaEventCreate(&batch_done[1]));
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)scatter_kernel, BLOCK_THREADS, 0);
    /* An iteration with work traces a segment of every path in the stream, and a full stream
     * while paths are queued; past this many iterations the loop could only be a bug. */
    unsigned long long most_iterations = total_paths * (unsigned long long)job->max_depth /
                                             (unsigned long long)d.capacity +
                                         (unsigned long long)job->max_depth + 3 * BATCH_ITERATIONS;
    int batches = 0;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    launch_regenerate(&d, world, 0, total_paths, NULL); /* the first input: the first paths */
    int input = 0;
    enqueue_batch(&d, world, total_paths, &input, &device_work_left[0], batch_done[0]);
    for (int batch = 0;; ++batch) {
        /* The next batch goes in before the host waits for this one: the GPU always has work
         * queued behind what it runs, and never waits for the host. */
        enqueue_batch(&d, world, total_paths, &input, &device_work_left[(batch + 1) % 2],
                      batch_done[(batch + 1) % 2]);
        batches = batch + 2;
        CUDA_CHECK(cudaEventSynchronize(batch_done[batch % 2]));
        if (!work_left[batch % 2])
            break; /* no path live and none queued: the batch just enqueued finds nothing */
        if ((unsigned long long)batches * BATCH_ITERATIONS > most_iterations) {
            fprintf(stderr, "%s: error: the streams still hold paths after %d iterations\n",
                    stage_manifest.name, batches * BATCH_ITERATIONS);
            exit(1);
        }
    }
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(sums, d.sums, sum_bytes, cudaMemcpyDeviceToHost));
    struct stream_counters counters; /* after the loop, for its metrics; not in bytes back,
                                        which the track's tests hold to the sums */
    CUDA_CHECK(cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = sum_bytes;
    report_metric(report, "stream_capacity", d.capacity, "paths");
    report_metric(report, "iterations", batches * BATCH_ITERATIONS, "iterations");
    report_metric(report, "empty_iterations",
                  batches * BATCH_ITERATIONS - counters.iterations_with_work, "iterations");

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    CUDA_CHECK(cudaEventDestroy(batch_done[0]));
    CUDA_CHECK(cudaEventDestroy(batch_done[1]));
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    CUDA_CHECK(cudaFreeHost((void *)work_left));
    report_phase_since(report, PHASE_HOST_FREE, start);
}

/* The kernel benchmark: the recorded live paths packed into an input stream, as the compaction
 * leaves them, then each extension kernel alone over it. */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times)
{
    struct pt_world world = pt_scene_world(scene, record->width, record->height);
    world.max_depth = record->max_depth;
    int count = record->width * record->height;
    struct path_stream live;
    host_stream_alloc(&live, count);
    times->active = 0;
    for (int p = 0; p < count; ++p) {
        if (record->done[p])
            continue;
        int i = times->active++;
        live.pixel[i] = (unsigned)p;
        live.frame[i] = (unsigned)record->sample;
        live.segment[i] = record->segment;
        live.origin[i] = record->origin[p];
        live.direction[i] = record->direction[p];
        live.attenuation[i] = record->attenuation[p];
    }

    struct device_paths d;
    paths_alloc(&d, times->active > 0 ? times->active : 1, count);
    paths_upload_scene(&world);
    stream_copy(d.streams[0], live, times->active, cudaMemcpyHostToDevice);
    struct stream_counters counters = {{0, 0}, {0, 0}, 0, 0};
    counters.count[0] = counters.live = times->active;
    double *intersect_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    double *scatter_us = (double *)host_alloc_or_exit((size_t)repeats * sizeof(double), "times");
    cudaEvent_t marks[3];
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventCreate(&marks[k]));
    for (int r = 0; r < repeats; ++r) {
        /* The scatter kernel counted what it wrote to stream 1; the input it read is intact. */
        CUDA_CHECK(cudaMemcpy(d.counters, &counters, sizeof counters, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(marks[0], 0));
        launch_intersect(&d, &world, 0);
        CUDA_CHECK(cudaEventRecord(marks[1], 0));
        launch_scatter(&d, &world, 0);
        CUDA_CHECK(cudaEventRecord(marks[2], 0));
        CUDA_CHECK(cudaEventSynchronize(marks[2]));
        float ms[2];
        CUDA_CHECK(cudaEventElapsedTime(&ms[0], marks[0], marks[1]));
        CUDA_CHECK(cudaEventElapsedTime(&ms[1], marks[1], marks[2]));
        intersect_us[r] = ms[0] * 1000.0;
        scatter_us[r] = ms[1] * 1000.0;
    }
    pt_bench_median_min(intersect_us, repeats, times->intersect_us);
    pt_bench_median_min(scatter_us, repeats, times->scatter_us);
    for (int k = 0; k < 3; ++k)
        CUDA_CHECK(cudaEventDestroy(marks[k]));
    paths_free(&d);
    host_stream_free(&live);
    free(intersect_us);
    free(scatter_us);
}
