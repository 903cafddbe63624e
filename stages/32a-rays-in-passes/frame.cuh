/* The frame, as the host half (13-steady-state/host.cuh) asks of a stage: what a frame needs that
 * outlives it, allocated and freed once (the ray queues among it), and the launches of one frame,
 * those before the bands and one band's passes. */

#define BAND_COUNT 16  /* bands of rows, each its own passes and copy */
#define STREAM_COUNT 4 /* band b's passes go to stream b % STREAM_COUNT */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    Scene scene; /* the spheres and the tree: device pointers */
    struct build_buffers build; /* what the tree's build works in */
    struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
    int sphere_count;
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    /* Each stream's two queues, for the band it renders (its bands follow one another): the
     * points its primary rays hit and the points their reflections hit, each for as many entries
     * as the largest band has pixels. Their counts lie side by side in queue_counts. */
    struct ray_queue hits[STREAM_COUNT], reflections[STREAM_COUNT];
    int *queue_counts;
    int queue_blocks[2]; /* blocks of secondary_kernel, reflection_shadow_kernel for one wave */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's last pass */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* What the frame takes from the scene, and what the stage works out from it for the light and the
 * camera, on the host (the end of the host allocation phase). */
static void prepare_frame(struct frame_resources *frame, const struct scene *scene, Light *light,
                          Camera *camera)
{
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
    frame->sphere_count = scene->sphere_count;
}

/* What frames 2..N's builds report to: a report of their own (steady). */
static struct report *steady_report(struct frame_resources *frame, struct report *report)
{
    report_init(&frame->steady, report->stage);
    return &frame->steady;
}

/* The tree's memory on the GPU, allocated and freed with the frame's (build_tree.cuh). */
static void allocate_tree(struct frame_resources *frame, const struct scene *scene);
static void free_tree(const struct frame_resources *frame);

/* One array of a ray queue, or, where the device has no room for it, one line and exit status 1. */
static void *allocate_queue_array(size_t bytes, size_t queues_bytes)
{
    void *array;
    const cudaError_t result = cudaMalloc(&array, bytes);
    if (result == cudaErrorMemoryAllocation) {
        fprintf(stderr, "%s: error: out of device memory: the ray queues need %zu bytes\n",
                stage_manifest.name, queues_bytes);
        exit(1);
    }
    CUDA_CHECK(result);
    return array;
}

/* A queue of `capacity` entries, counted in *count; the reflections' also holds what a reflection
 * hit. */
static void allocate_queue(struct ray_queue *queue, size_t capacity, bool reflections,
                           int *count, size_t queues_bytes)
{
    queue->origin = (float4 *)allocate_queue_array(capacity * sizeof(float4), queues_bytes);
    queue->direction = (float4 *)allocate_queue_array(capacity * sizeof(float4), queues_bytes);
    queue->pixel = (int2 *)allocate_queue_array(capacity * sizeof(int2), queues_bytes);
    queue->reflection =
        reflections ? (int2 *)allocate_queue_array(capacity * sizeof(int2), queues_bytes) : NULL;
    queue->count = count;
}

static void free_queue(const struct ray_queue *queue)
{
    CUDA_CHECK(cudaFree(queue->origin));
    CUDA_CHECK(cudaFree(queue->direction));
    CUDA_CHECK(cudaFree(queue->pixel));
    CUDA_CHECK(cudaFree(queue->reflection));
}

/* Blocks of a queue's kernel for one wave of the GPU (at least one), but no more than its largest
 * queue needs. */
static int queue_wave(const void *kernel, int block_threads, size_t capacity, int multiprocessors)
{
    int blocks_per_multiprocessor;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel,
                                                             block_threads, 0));
    const size_t needed = (capacity + block_threads - 1) / block_threads;
    const size_t wave = (size_t)multiprocessors * blocks_per_multiprocessor;
    return wave < 1 ? 1 : (int)(wave < needed ? wave : needed);
}

/* The device allocation phase. */
static void allocate_frame(struct frame_resources *frame, const struct render_job *job,
                           size_t framebuffer_bytes)
{
    const size_t n = (size_t)job->scene->sphere_count;
    CUDA_CHECK(cudaMalloc((void **)&frame->device_framebuffer, framebuffer_bytes));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.spheres, n * sizeof(Sphere)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.geometry, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame->scene.from_camera, n * sizeof(float4)));
    allocate_tree(frame, job->scene); /* the tree and its build's buffers */
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_x, (size_t)job->width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_y, (size_t)job->height * sizeof(float)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame->streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame->copy_stream));
    int device, multiprocessors, blocks_per_multiprocessor;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_multiprocessor, render_kernel, job->block_x * job->block_y, 0));
    frame->resident_blocks = multiprocessors * blocks_per_multiprocessor;
    /* The queues, for the largest band (bands.cuh's rows a band): every pixel of it may hit, and
     * so may every reflection. */
    const size_t band_rows = (size_t)(job->height + BAND_COUNT - 1) / BAND_COUNT;
    const size_t capacity = band_rows * (size_t)job->width;
    const size_t queues_bytes = STREAM_COUNT * capacity * (4 * sizeof(float4) + 3 * sizeof(int2));
    frame->queue_counts =
        (int *)allocate_queue_array(2 * STREAM_COUNT * sizeof(int), queues_bytes);
    for (int s = 0; s < STREAM_COUNT; s++) {
        allocate_queue(&frame->hits[s], capacity, false, &frame->queue_counts[2 * s],
                       queues_bytes);
        allocate_queue(&frame->reflections[s], capacity, true, &frame->queue_counts[2 * s + 1],
                       queues_bytes);
    }
    const int block_threads = job->block_x * job->block_y;
    frame->queue_blocks[0] =
        queue_wave((const void *)secondary_kernel, block_threads, capacity, multiprocessors);
    frame->queue_blocks[1] = queue_wave((const void *)reflection_shadow_kernel, block_threads,
                                        capacity, multiprocessors);
    CUDA_CHECK(cudaEventCreate(&frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame->band_rendered[b]));
    }
}

/* The device free phase. */
static void free_frame(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree(frame->device_framebuffer));
    CUDA_CHECK(cudaFree((void *)frame->scene.spheres));
    CUDA_CHECK(cudaFree((void *)frame->scene.geometry));
    CUDA_CHECK(cudaFree((void *)frame->scene.from_camera));
    free_tree(frame);
    CUDA_CHECK(cudaFree(frame->plane_x));
    CUDA_CHECK(cudaFree(frame->plane_y));
    for (int s = 0; s < STREAM_COUNT; s++) {
        free_queue(&frame->hits[s]);
        free_queue(&frame->reflections[s]);
    }
    CUDA_CHECK(cudaFree(frame->queue_counts));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame->streams[s]));
    }
    CUDA_CHECK(cudaStreamDestroy(frame->copy_stream));
    CUDA_CHECK(cudaEventDestroy(frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame->band_rendered[b]));
    }
}

/* Before the bands, in the legacy default stream: the image-plane tables. */
static void launch_setup(const struct frame_resources *frame, int /* sphere_count */, int width,
                         int height)
{
    const int plane_threads = 256;
    plane_kernel<<<(width + height + plane_threads - 1) / plane_threads, plane_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
}

/* One band's passes, rows first_row .. end_row - 1, on its stream, each after the one before; the
 * band's copy waits for the last. */
static void launch_render(const struct frame_resources *frame, dim3 threads, cudaStream_t stream,
                          int /* sphere_count */, int width, int height, int first_row,
                          int end_row)
{
    /* The stream's queues, emptied: its previous band has finished with them. */
    int s = 0;
    while (s < STREAM_COUNT - 1 && frame->streams[s] != stream) {
        s++;
    }
    const struct ray_queue *hits = &frame->hits[s], *reflections = &frame->reflections[s];
    CUDA_CHECK(cudaMemsetAsync(&frame->queue_counts[2 * s], 0, 2 * sizeof(int), stream));
    /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
    const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
    dim3 blocks((width + threads.x - 1) / threads.x, 1);
    blocks.y = frame->resident_blocks / blocks.x + 1;
    blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
    render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->scene,
                                                  frame->plane_x, frame->plane_y, width, height,
                                                  first_row, end_row, *hits);
    CUDA_CHECK_LAUNCH("render_kernel");
    /* The queues' passes take as many threads a block as the pixels' (--block), in one dimension,
     * in one wave: the count of entries is on the GPU, and the grid strides through them. */
    const unsigned int queue_threads = threads.x * threads.y;
    secondary_kernel<<<frame->queue_blocks[0], queue_threads, 0, stream>>>(
        frame->device_framebuffer, frame->scene, *hits, *reflections);
    CUDA_CHECK_LAUNCH("secondary_kernel");
    reflection_shadow_kernel<<<frame->queue_blocks[1], queue_threads, 0, stream>>>(
        frame->device_framebuffer, frame->scene, *reflections);
    CUDA_CHECK_LAUNCH("reflection_shadow_kernel");
}

/* The stage's limits and defaults (runtime/stage_info.h). */
extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
