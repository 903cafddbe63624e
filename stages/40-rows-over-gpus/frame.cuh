/* The frame over several GPUs, as the host half (host.cuh) asks of a stage: the frame's rows split
 * into one slice a GPU, and each GPU's own copy of what a frame needs that outlives it (its frame
 * buffer, bins, bounds and image-plane tables on the device, its streams and events), allocated
 * and freed once; the launches of one GPU's setup and of one band's kernel on it. Everything a GPU
 * holds on the device is the whole image's size, so that its slice of rows may move from frame to
 * frame (split.cuh) without a new allocation. */

#define BAND_COUNT 16  /* bands of each GPU's rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* a GPU's band b goes to its stream b % STREAM_COUNT */
#define MAX_GPUS OPTIONS_MAX_GPUS

/* One GPU's share of the frame: its rows, and everything it renders them with. */
struct gpu_slice {
    int device;             /* its CUDA device number */
    int first_row, end_row; /* its rows: first_row .. end_row - 1 */
    int band_rows, bands;   /* its rows cut into bands of band_rows rows (the last may be short) */
    /* A frame the whole image's size: the GPU writes and copies its own rows only, so that the
     * kernel indexes pixels as stage 21's does. */
    unsigned char *device_framebuffer;
    unsigned int *tile_bins, *light_bins; /* mask_words words per tile, per cell */
    float4 *bounds; /* per sphere: centre and 1.01 x radius, for the reflection packets */
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
    float4 *bounds_on_host;     /* each sphere's bounds on the host, sent every frame */
    int tiles_x, tiles_y, mask_words;
    float shadow_near; /* the light cells serve shadow rays from within this of the light */
    int gpu_count;
    struct gpu_slice gpus[MAX_GPUS];
};

/* The rows a boundary between two GPUs' slices moves by when the split is balanced (41's
 * split.cuh): whole tile rows, so that no tile is binned by two GPUs, where the image has a tile
 * row for every GPU; single rows where it has fewer. Inline: the stages that keep their split
 * (40, 42) do not call it. */
static inline int split_unit(const struct frame_resources *frame)
{
    return frame->tiles_y >= frame->gpu_count ? TILE_SIZE : 1;
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
    frame->shadow_near = scene_shadow_near(scene);
}

/* The device allocation phase: every GPU's allocations, streams and events, one GPU after the
 * other (each cudaSetDevice makes the calls after it the GPU's). */
static void allocate_frame(struct frame_resources *frame, const struct render_job *job,
                           size_t framebuffer_bytes)
{
    frame->tiles_x = (job->width + TILE_SIZE - 1) / TILE_SIZE;
    frame->tiles_y = (job->height + TILE_SIZE - 1) / TILE_SIZE;
    frame->mask_words = (job->scene->sphere_count + 31) / 32;
    for (int g = 0; g < frame->gpu_count; g++) {
        struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        CUDA_CHECK(cudaMalloc((void **)&gpu->device_framebuffer, framebuffer_bytes));
        CUDA_CHECK(cudaMalloc((void **)&gpu->tile_bins,
                              (size_t)frame->tiles_x * frame->tiles_y * frame->mask_words *
                                  sizeof(unsigned int)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->bounds,
                              (size_t)job->scene->sphere_count * sizeof(float4)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->plane_x, (size_t)job->width * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->plane_y, (size_t)job->height * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&gpu->light_bins,
                              (size_t)(3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words *
                                  sizeof(unsigned int)));
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
        CUDA_CHECK(cudaFree(gpu->tile_bins));
        CUDA_CHECK(cudaFree(gpu->light_bins));
        CUDA_CHECK(cudaFree(gpu->bounds));
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
 * bins of the tiles its rows touch, and the light bins and image-plane tables of the whole image,
 * in one launch. The kernel reads them by the pixel's row and column, so the bins stay where
 * stage 21 put them; a tile that two GPUs' rows share is binned by both, to the same bits. */
static void launch_setup(const struct frame_resources *frame, const struct gpu_slice *gpu,
                         int sphere_count, int width, int height)
{
    const int bin_threads = 256;
    const int tile_row_words = frame->tiles_x * frame->mask_words;
    const int first_tile_row = gpu->first_row / TILE_SIZE;
    const int end_tile_row = (gpu->end_row + TILE_SIZE - 1) / TILE_SIZE;
    const int tile_words = (end_tile_row - first_tile_row) * tile_row_words;
    const int light_words = (3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words;
    const int tile_blocks = (tile_words + bin_threads - 1) / bin_threads;
    const int light_blocks = (light_words + bin_threads - 1) / bin_threads;
    const int plane_blocks = (width + height + bin_threads - 1) / bin_threads;
    setup_kernel<<<tile_blocks + light_blocks + plane_blocks, bin_threads>>>(
        gpu->tile_bins, gpu->light_bins, gpu->plane_x, gpu->plane_y, frame->tiles_x,
        frame->tiles_y, frame->mask_words, sphere_count, width, height,
        first_tile_row * tile_row_words, tile_blocks, light_blocks, frame->shadow_near);
    CUDA_CHECK_LAUNCH("setup_kernel");
}

/* One band's kernel, rows first_row .. end_row - 1, on one of the GPU's streams (the GPU must be
 * the current device). */
static void launch_render(const struct frame_resources *frame, const struct gpu_slice *gpu,
                          dim3 threads, cudaStream_t stream, int sphere_count, int width,
                          int height, int first_row, int end_row)
{
    /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
    const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
    dim3 blocks((width + threads.x - 1) / threads.x, 1);
    blocks.y = gpu->resident_blocks / blocks.x + 1;
    blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
    render_kernel<<<blocks, threads, 0, stream>>>(gpu->device_framebuffer, gpu->tile_bins,
                                                  gpu->light_bins, gpu->bounds, gpu->plane_x,
                                                  gpu->plane_y, frame->mask_words, sphere_count,
                                                  width, height, first_row, end_row,
                                                  frame->shadow_near);
    CUDA_CHECK_LAUNCH("render_kernel");
}
