/* The frame of a big scene over several GPUs, as the host half (40's host.cuh) asks of a stage: the
 * frame's rows split into one slice a GPU (40's rows.cuh), and on each GPU its own copy of what
 * stage 33's frame needs that outlives it (the scene's arrays and its tree on the device, the
 * tree's build buffers, a frame buffer, the image-plane tables, its streams and events),
 * allocated and freed once; the launches of one GPU's setup and of one band's kernel on it.
 * Everything a GPU holds on the device is the whole image's size, so that its slice of rows may
 * move from frame to frame (41's split.cuh) without a new allocation. */

#define BAND_COUNT 16  /* bands of each GPU's rows, each its own kernel launch and copy */
/* A GPU's band b goes to its stream b % STREAM_COUNT: eight streams, not stage 33's four. A GPU's
 * bands hold its share of the rows (half of stage 33's bands on two GPUs), and a band's walk ends
 * in a tail, its slowest blocks running on an otherwise idle GPU; more bands at once fill it. */
#define STREAM_COUNT 8
#define MAX_GPUS OPTIONS_MAX_GPUS

/* One GPU's share of the frame: its rows, and everything it renders them with. */
struct gpu_slice {
    int device;             /* its CUDA device number */
    int first_row, end_row; /* its rows: first_row .. end_row - 1 */
    int band_rows, bands;   /* its rows cut into bands of band_rows rows (the last may be short) */
    /* A frame the whole image's size: the GPU writes and copies its own rows only, so that the
     * kernel indexes pixels as stage 33's does. */
    unsigned char *device_framebuffer;
    Scene scene; /* the spheres and this GPU's tree over them: device pointers */
    struct build_buffers build; /* what this GPU's build of the tree works in */
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel this GPU holds at once */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
    cudaEvent_t bands_copied; /* on the copy stream after its last band's copy: its frame's end */
};

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer; /* the one host frame, pinned for every GPU; each fills its rows */
    struct report steady; /* the builds of frames 2..N are in the frame times, not the phase */
    int sphere_count;
    int gpu_count;
    struct gpu_slice gpus[MAX_GPUS];
};

/* The rows a boundary between two GPUs' slices moves by when the split is balanced (41's
 * split.cuh). Stage 41 moved them by the tiles its setup bins; this stage bins nothing, and any
 * row would do: the unit is a warp tile's height (TILE_HEIGHT, 30's render_kernel.cuh), single
 * rows where the image has fewer such rows than GPUs. It keeps no tile whole: a warp's tile is
 * laid out from its band's first row, and a band whose rows are not a multiple of four ends in a
 * short one, on one GPU as on several. */
static inline int split_unit(const struct frame_resources *frame)
{
    const int height = frame->gpus[frame->gpu_count - 1].end_row;
    return (height + TILE_HEIGHT - 1) / TILE_HEIGHT >= frame->gpu_count ? TILE_HEIGHT : 1;
}

/* What the frame takes from the scene, and what the stage works out from it for the light and the
 * camera, on the host (the end of the host allocation phase): the same for every GPU. */
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

/* The device allocation phase: every GPU's allocations, its tree's and its build's among them
 * (26's build_launches.cuh), its streams and events, one GPU after the other (each cudaSetDevice
 * makes the calls after it the GPU's). */
static void allocate_frame(struct frame_resources *frame, const struct render_job *job,
                           size_t framebuffer_bytes)
{
    const size_t n = (size_t)job->scene->sphere_count;
    for (int g = 0; g < frame->gpu_count; g++) {
        struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        CUDA_CHECK(cudaMalloc((void **)&gpu->device_framebuffer, framebuffer_bytes));
        CUDA_CHECK(cudaMalloc((void **)&gpu->scene.spheres, n * sizeof(Sphere)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->scene.geometry, n * sizeof(float4)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->scene.from_camera, n * sizeof(float4)));
        allocate_build(&gpu->scene, &gpu->build, job->scene->sphere_count);
        CUDA_CHECK(cudaMalloc((void **)&gpu->plane_x, (size_t)job->width * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->plane_y, (size_t)job->height * sizeof(float)));
        for (int s = 0; s < STREAM_COUNT; s++) {
            CUDA_CHECK(cudaStreamCreate(&gpu->streams[s]));
        }
        CUDA_CHECK(cudaStreamCreate(&gpu->copy_stream));
        int multiprocessors, blocks_per_multiprocessor;
        CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount,
                                          gpu->device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks_per_multiprocessor, render_kernel, job->block_x * job->block_y, 0));
        gpu->resident_blocks = multiprocessors * blocks_per_multiprocessor;
        CUDA_CHECK(cudaEventCreate(&gpu->bands_start));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventCreate(&gpu->band_rendered[b]));
        }
        CUDA_CHECK(cudaEventCreate(&gpu->bands_copied));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}

/* The device free phase, GPU by GPU. */
static void free_frame(struct frame_resources *frame)
{
    for (int g = 0; g < frame->gpu_count; g++) {
        struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        CUDA_CHECK(cudaFree(gpu->device_framebuffer));
        CUDA_CHECK(cudaFree((void *)gpu->scene.spheres));
        CUDA_CHECK(cudaFree((void *)gpu->scene.geometry));
        CUDA_CHECK(cudaFree((void *)gpu->scene.from_camera));
        free_build(&gpu->scene, &gpu->build);
        CUDA_CHECK(cudaFree(gpu->plane_x));
        CUDA_CHECK(cudaFree(gpu->plane_y));
        for (int s = 0; s < STREAM_COUNT; s++) {
            CUDA_CHECK(cudaStreamDestroy(gpu->streams[s]));
        }
        CUDA_CHECK(cudaStreamDestroy(gpu->copy_stream));
        CUDA_CHECK(cudaEventDestroy(gpu->bands_start));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventDestroy(gpu->band_rendered[b]));
        }
        CUDA_CHECK(cudaEventDestroy(gpu->bands_copied));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}

/* Before a GPU's bands, in its legacy default stream (the GPU must be the current device): the
 * image-plane tables, as stage 33's setup. */
static void launch_setup(const struct frame_resources *, const struct gpu_slice *gpu,
                         int /* sphere_count */, int width, int height)
{
    const int plane_threads = 256;
    plane_kernel<<<(width + height + plane_threads - 1) / plane_threads, plane_threads>>>(
        gpu->plane_x, gpu->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
}

/* One band's kernel, rows first_row .. end_row - 1, on one of the GPU's streams (the GPU must be
 * the current device). */
static void launch_render(const struct frame_resources *, const struct gpu_slice *gpu,
                          dim3 threads, cudaStream_t stream, int /* sphere_count */, int width,
                          int height, int first_row, int end_row)
{
    /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
    const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
    dim3 blocks((width + threads.x - 1) / threads.x, 1);
    blocks.y = gpu->resident_blocks / blocks.x + 1;
    blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
    render_kernel<<<blocks, threads, 0, stream>>>(gpu->device_framebuffer, gpu->scene,
                                                  gpu->plane_x, gpu->plane_y, width, height,
                                                  first_row, end_row);
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
