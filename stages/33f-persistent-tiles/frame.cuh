/* The frame, as the host half (13-steady-state/host.cuh) asks of a stage: what a frame needs that
 * outlives it, allocated and freed once, and the launches of one frame, those before the bands and
 * one band's kernel. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    Scene scene; /* the spheres and the tree: device pointers */
    struct build_buffers build; /* what the tree's build works in */
    struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
    int sphere_count;
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    unsigned int *tile_counters; /* per band: the tiles its warps have taken, 0 at its launch */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
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
    CUDA_CHECK(cudaMalloc((void **)&frame->tile_counters, BAND_COUNT * sizeof(unsigned int)));
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
    CUDA_CHECK(cudaFree(frame->tile_counters));
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

/* One band's kernel, rows first_row .. end_row - 1, on its stream: the band's counter set to 0,
 * then as many blocks as the GPU holds at once (fewer for a band of fewer tiles), each of whose
 * warps takes tiles until the band's are handed out. */
static void launch_render(const struct frame_resources *frame, dim3 threads, cudaStream_t stream,
                          int /* sphere_count */, int width, int height, int first_row,
                          int end_row)
{
    const int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT; /* launch_bands' */
    unsigned int *next_tile = frame->tile_counters + first_row / band_rows;
    CUDA_CHECK(cudaMemsetAsync(next_tile, 0, sizeof *next_tile, stream));
    const long long tiles = (long long)((width + TILE_WIDTH - 1) / TILE_WIDTH) *
                            ((end_row - first_row + TILE_HEIGHT - 1) / TILE_HEIGHT);
    const int warps_per_block = (int)((threads.x * threads.y + 31) / 32);
    const long long blocks_for_tiles = (tiles + warps_per_block - 1) / warps_per_block;
    const int blocks = blocks_for_tiles < frame->resident_blocks ? (int)blocks_for_tiles
                                                                  : frame->resident_blocks;
    render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->scene,
                                                  frame->plane_x, frame->plane_y, width, height,
                                                  first_row, end_row, next_tile);
    CUDA_CHECK_LAUNCH("render_kernel");
}

/* The stage's limits and defaults (runtime/stage_info.h). */
extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
