/* The bands of one frame: each band's kernel and its copy to the host, launched band by band, the
 * wait for the last copy, and the frame's way out once it is on the host. */

/* Launches the setup, then every band's kernel and copy on its stream; returns the number of
 * bands. */
static int launch_bands(const struct frame_resources *frame, dim3 threads, int sphere_count,
                        int width, int height)
{
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    /* Recorded in the legacy default stream, which the bands' streams (cudaStreamCreate: blocking)
     * wait for; so do the setup's kernels, launched there too. */
    CUDA_CHECK(cudaEventRecord(frame->bands_start, 0));
    launch_setup(frame, sphere_count, width, height);
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        launch_render(frame, threads, stream, sphere_count, width, height, first_row, end_row);
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

/* The image file streamed as the bands arrive (stage 21a's PNG): not here. */
static void start_stream(struct frame_resources *, struct render_job *) {}
static void mark_frame_on_host(struct frame_resources *) {}
static bool finish_stream(struct frame_resources *, struct render_job *) { return false; }
