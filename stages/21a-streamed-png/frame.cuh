/* The frame, as the host half (13-steady-state/host.cuh) asks of a stage: what a frame needs that
 * outlives it, allocated and freed once, and the launches of one frame, those before the bands and
 * one band's kernel. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

/* With a PNG to write, what the encoder is told as each band's copy ends. */
struct band_arrival {
    struct png_stream *encoder;
    int rows; /* once this band's copy is done, rows 0 .. rows - 1 are on the host */
};

/* Runs on a CUDA thread once a band's copy is done: calls no CUDA, holds a lock for a moment. */
static void CUDART_CB band_arrived(void *arrival)
{
    const struct band_arrival *band = (const struct band_arrival *)arrival;
    png_stream_rows_ready(band->encoder, band->rows);
}

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    unsigned int *tile_bins, *light_bins; /* mask_words words per tile, per cell */
    float4 *bounds; /* per sphere: centre and 1.01 x radius, for the reflection packets */
    float4 *bounds_on_host; /* the same on the host, sent every frame (upload.cuh) */
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    int tiles_x, tiles_y, mask_words;
    float shadow_near; /* the light cells serve shadow rays from within this of the light */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
    /* With a PNG to write (streamed): its encoder (NULL once no longer fed), and what tells it
     * that a band is on the host: an event after its copy, and a host function in a stream that
     * waits for it. */
    bool streamed;
    struct png_stream *encoder;
    struct band_arrival arrivals[BAND_COUNT];
    cudaStream_t arrival_stream;
    cudaEvent_t band_copied[BAND_COUNT];
    double on_host; /* when the first frame was on the host */
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
    frame->shadow_near = scene_shadow_near(scene);
}

/* The device allocation phase. */
static void allocate_frame(struct frame_resources *frame, const struct render_job *job,
                           size_t framebuffer_bytes)
{
    CUDA_CHECK(cudaMalloc((void **)&frame->device_framebuffer, framebuffer_bytes));
    frame->tiles_x = (job->width + TILE_SIZE - 1) / TILE_SIZE;
    frame->tiles_y = (job->height + TILE_SIZE - 1) / TILE_SIZE;
    frame->mask_words = (job->scene->sphere_count + 31) / 32;
    CUDA_CHECK(cudaMalloc((void **)&frame->tile_bins,
                          (size_t)frame->tiles_x * frame->tiles_y * frame->mask_words *
                              sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&frame->bounds,
                          (size_t)job->scene->sphere_count * sizeof(float4)));
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_x, (size_t)job->width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_y, (size_t)job->height * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame->light_bins,
                          (size_t)(3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words *
                              sizeof(unsigned int)));
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
    if (frame->streamed) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&frame->arrival_stream, cudaStreamNonBlocking));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventCreateWithFlags(&frame->band_copied[b], cudaEventDisableTiming));
        }
    }
}

/* The device free phase. */
static void free_frame(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree(frame->device_framebuffer));
    CUDA_CHECK(cudaFree(frame->tile_bins));
    CUDA_CHECK(cudaFree(frame->light_bins));
    CUDA_CHECK(cudaFree(frame->bounds));
    CUDA_CHECK(cudaFree(frame->plane_x));
    CUDA_CHECK(cudaFree(frame->plane_y));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame->streams[s]));
    }
    CUDA_CHECK(cudaStreamDestroy(frame->copy_stream));
    CUDA_CHECK(cudaEventDestroy(frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame->band_rendered[b]));
    }
    if (frame->streamed) {
        CUDA_CHECK(cudaStreamDestroy(frame->arrival_stream));
        for (int b = 0; b < BAND_COUNT; b++) {
            CUDA_CHECK(cudaEventDestroy(frame->band_copied[b]));
        }
    }
}

/* Before the bands, in the legacy default stream: the bins and the image-plane tables, in one
 * launch. */
static void launch_setup(const struct frame_resources *frame, int sphere_count, int width,
                         int height)
{
    const int bin_threads = 256;
    const int tile_words = frame->tiles_x * frame->tiles_y * frame->mask_words;
    const int light_words = (3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words;
    const int tile_blocks = (tile_words + bin_threads - 1) / bin_threads;
    const int light_blocks = (light_words + bin_threads - 1) / bin_threads;
    const int plane_blocks = (width + height + bin_threads - 1) / bin_threads;
    setup_kernel<<<tile_blocks + light_blocks + plane_blocks, bin_threads>>>(
        frame->tile_bins, frame->light_bins, frame->plane_x, frame->plane_y, frame->tiles_x,
        frame->tiles_y, frame->mask_words, sphere_count, width, height, tile_blocks, light_blocks,
        frame->shadow_near);
    CUDA_CHECK_LAUNCH("setup_kernel");
}

/* One band's kernel, rows first_row .. end_row - 1, on its stream. */
static void launch_render(const struct frame_resources *frame, dim3 threads, cudaStream_t stream,
                          int sphere_count, int width, int height, int first_row, int end_row)
{
    /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
    const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
    dim3 blocks((width + threads.x - 1) / threads.x, 1);
    blocks.y = frame->resident_blocks / blocks.x + 1;
    blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
    render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->tile_bins,
                                                  frame->light_bins, frame->bounds,
                                                  frame->plane_x, frame->plane_y,
                                                  frame->mask_words,
                                                  sphere_count, width, height, first_row,
                                                  end_row, frame->shadow_near);
    CUDA_CHECK_LAUNCH("render_kernel");
}
