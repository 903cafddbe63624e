/* The frame, as the host half (13-steady-state/host.cuh) asks of a stage: what a frame needs that
 * outlives it, allocated and freed once, and the launches of one frame, those before the bands and
 * one band's kernel. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b goes to stream b % STREAM_COUNT */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    cudaStream_t streams[STREAM_COUNT];
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* What the frame takes from the scene, and what the stage works out from it for the light and the
 * camera, on the host (the end of the host allocation phase). */
static void prepare_frame(struct frame_resources *, const struct scene *, Light *, Camera *)
{
}

/* The device allocation phase. */
static void allocate_frame(struct frame_resources *frame, const struct render_job *,
                           size_t framebuffer_bytes)
{
    CUDA_CHECK(cudaMalloc((void **)&frame->device_framebuffer, framebuffer_bytes));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamCreate(&frame->streams[s]));
    }
    CUDA_CHECK(cudaEventCreate(&frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventCreate(&frame->band_rendered[b]));
    }
}

/* The device free phase. */
static void free_frame(struct frame_resources *frame)
{
    CUDA_CHECK(cudaFree(frame->device_framebuffer));
    for (int s = 0; s < STREAM_COUNT; s++) {
        CUDA_CHECK(cudaStreamDestroy(frame->streams[s]));
    }
    CUDA_CHECK(cudaEventDestroy(frame->bands_start));
    for (int b = 0; b < BAND_COUNT; b++) {
        CUDA_CHECK(cudaEventDestroy(frame->band_rendered[b]));
    }
}

/* Before the bands, in the legacy default stream: nothing yet. */
static void launch_setup(const struct frame_resources *, int /* sphere_count */, int /* width */,
                         int /* height */)
{
}

/* One band's kernel, rows first_row .. end_row - 1, on its stream. */
static void launch_render(const struct frame_resources *frame, dim3 threads, cudaStream_t stream,
                          int sphere_count, int width, int height, int first_row, int end_row)
{
    dim3 blocks((width + threads.x - 1) / threads.x,
                (end_row - first_row + threads.y - 1) / threads.y);
    render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, sphere_count,
                                                  width, height, first_row, end_row);
    CUDA_CHECK_LAUNCH("render_kernel");
}
