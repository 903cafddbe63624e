/* The frame, as the host half (13-steady-state/host.cuh) asks of a stage: what a frame needs that
 * outlives it, allocated and freed once, and the launches of one frame, those before the bands and
 * one band's kernel. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    unsigned int *tile_bins, *light_bins; /* mask_words words per tile, per cell */
    float *plane_x, *plane_y;             /* per column, per row */
    int tiles_x, tiles_y, mask_words;
    float shadow_near; /* the light cells serve shadow rays from within this of the light */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* What the frame takes from the scene, and what the stage works out from it for the light and the
 * camera, on the host (the end of the host allocation phase). */
static void prepare_frame(struct frame_resources *frame, const struct scene *scene, Light *,
                          Camera *camera)
{
    camera->background_unit = make_float3(camera->background.x / 255.0f,
                                          camera->background.y / 255.0f,
                                          camera->background.z / 255.0f);
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
    CUDA_CHECK(cudaMalloc((void **)&frame->light_bins,
                          (size_t)(3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words *
                              sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_x, (size_t)job->width * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&frame->plane_y, (size_t)job->height * sizeof(float)));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame->streams[s]));
    }
    CUDA_CHECK(cudaStreamCreate(&frame->copy_stream));
    CUDA_CHECK(cudaEventCreate(&frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame->band_rendered[b]));
    }
}

/* The device free phase. */
static void free_frame(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree(frame->device_framebuffer));
    CUDA_CHECK(cudaFree(frame->tile_bins));
    CUDA_CHECK(cudaFree(frame->light_bins));
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
}

/* Before the bands, in the legacy default stream: the bins and the image-plane tables. */
static void launch_setup(const struct frame_resources *frame, int sphere_count, int width,
                         int height)
{
    const int bin_threads = 256;
    const int tile_words = frame->tiles_x * frame->tiles_y * frame->mask_words;
    bin_tiles_kernel<<<(tile_words + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->tile_bins, frame->tiles_x, frame->tiles_y, frame->mask_words, sphere_count, width,
        height);
    CUDA_CHECK_LAUNCH("bin_tiles_kernel");
    const int light_words = (3 * LIGHT_CELLS * LIGHT_CELLS + 1) * frame->mask_words;
    bin_light_kernel<<<(light_words + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->light_bins, frame->mask_words, sphere_count, frame->shadow_near);
    CUDA_CHECK_LAUNCH("bin_light_kernel");
    plane_kernel<<<(width + height + bin_threads - 1) / bin_threads, bin_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
}

/* One band's kernel, rows first_row .. end_row - 1, on its stream. */
static void launch_render(const struct frame_resources *frame, dim3 threads, cudaStream_t stream,
                          int sphere_count, int width, int height, int first_row, int end_row)
{
    dim3 blocks((width + threads.x - 1) / threads.x,
                (end_row - first_row + threads.y - 1) / threads.y);
    render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->tile_bins,
                                                  frame->light_bins, frame->plane_x,
                                                  frame->plane_y, frame->mask_words,
                                                  sphere_count, width, height, first_row,
                                                  end_row, frame->shadow_near);
    CUDA_CHECK_LAUNCH("render_kernel");
}
