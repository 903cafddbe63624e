/* The bands of one frame: the image plane's tables, then each band's kernel on its stream and its
 * copy to the host on the copy stream; and the wait for the last copy. */

/* Launches every band's kernel and copy on its stream; returns the number of bands. */
static int launch_bands(const struct frame_resources *frame, dim3 threads, int width, int height)
{
    int band_rows = (height + BAND_COUNT - 1) / BAND_COUNT;
    int bands = (height + band_rows - 1) / band_rows;
    size_t row_bytes = (size_t)width * 3;
    /* Recorded in the legacy default stream, which the streams stage_render creates wait for;
     * so do the image-plane tables, launched there too. */
    CUDA_CHECK(cudaEventRecord(frame->bands_start, 0));
    const int plane_threads = 256;
    plane_kernel<<<(width + height + plane_threads - 1) / plane_threads, plane_threads>>>(
        frame->plane_x, frame->plane_y, width, height);
    CUDA_CHECK_LAUNCH("plane_kernel");
    for (int b = 0; b < bands; b++) {
        int first_row = b * band_rows;
        int end_row = first_row + band_rows < height ? first_row + band_rows : height;
        cudaStream_t stream = frame->streams[b % STREAM_COUNT];
        /* About one wave: the blocks the GPU holds at once, in whole rows of blocks. */
        const unsigned int row_blocks = (end_row - first_row + threads.y - 1) / threads.y;
        dim3 blocks((width + threads.x - 1) / threads.x, 1);
        blocks.y = frame->resident_blocks / blocks.x + 1;
        blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;
        render_kernel<<<blocks, threads, 0, stream>>>(frame->device_framebuffer, frame->scene,
                                                      frame->plane_x, frame->plane_y, width,
                                                      height, first_row, end_row);
        CUDA_CHECK_LAUNCH("render_kernel");
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
