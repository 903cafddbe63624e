/* The bands of one frame over the GPUs of the process (one: its rank's): each GPU's setup, then
 * band b of every GPU before band b + 1 of any; on the rank that has the host frame (rank 0), each
 * band's copy goes on its GPU's copy stream into its rows of the host frame, over its own link,
 * the last one followed by the event bands_copied, and the other ranks copy nothing home (their
 * rows go to rank 0: ranks.cuh). Then the wait for every GPU's last copy. */

/* Launches every GPU's setup, then every GPU's bands, each band's kernel and copy on its GPU's
 * streams; the first GPU is the current device again at the end. */
static void launch_bands(const struct frame_resources *frame, dim3 threads, int sphere_count,
                         int width, int height)
{
    const size_t row_bytes = (size_t)width * 3;
    int most_bands = 0;
    for (int g = 0; g < frame->gpu_count; g++) {
        const struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        /* Recorded in the GPU's legacy default stream, which its bands' streams (cudaStreamCreate:
         * blocking) wait for; so do the setup's kernels, launched there too, and the scene's
         * upload before them (upload.cuh). */
        CUDA_CHECK(cudaEventRecord(gpu->bands_start, 0));
        launch_setup(frame, gpu, sphere_count, width, height);
        most_bands = gpu->bands > most_bands ? gpu->bands : most_bands;
    }
    for (int b = 0; b < most_bands; b++) {
        for (int g = 0; g < frame->gpu_count; g++) {
            const struct gpu_slice *gpu = &frame->gpus[g];
            if (b >= gpu->bands) {
                continue;
            }
            const int first_row = gpu->first_row + b * gpu->band_rows;
            const int end_row = first_row + gpu->band_rows < gpu->end_row
                                    ? first_row + gpu->band_rows
                                    : gpu->end_row;
            cudaStream_t stream = gpu->streams[b % STREAM_COUNT];
            CUDA_CHECK(cudaSetDevice(gpu->device));
            launch_render(frame, gpu, threads, stream, sphere_count, width, height, first_row,
                          end_row);
            CUDA_CHECK(cudaEventRecord(gpu->band_rendered[b], stream));
            if (!frame->framebuffer) {
                continue; /* not rank 0: no host frame */
            }
            /* The copy waits for this band's kernel, and no kernel waits for it. */
            CUDA_CHECK(cudaStreamWaitEvent(gpu->copy_stream, gpu->band_rendered[b], 0));
            CUDA_CHECK(cudaMemcpyAsync(frame->framebuffer + (size_t)first_row * row_bytes,
                                       gpu->device_framebuffer + (size_t)first_row * row_bytes,
                                       (size_t)(end_row - first_row) * row_bytes,
                                       cudaMemcpyDeviceToHost, gpu->copy_stream));
            if (b == gpu->bands - 1) {
                CUDA_CHECK(cudaEventRecord(gpu->bands_copied, gpu->copy_stream));
            }
        }
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}

/* Each copy waits for its band's kernel, so once every GPU's copies are done, so is every band. */
static void wait_for_copies(const struct frame_resources *frame)
{
    for (int g = 0; g < frame->gpu_count; g++) {
        CUDA_CHECK(cudaSetDevice(frame->gpus[g].device));
        CUDA_CHECK(cudaStreamSynchronize(frame->gpus[g].copy_stream));
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
}
