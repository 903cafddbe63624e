/* The bands of one frame, each GPU's launched by a host thread of its own: a thread a GPU but the
 * first, whose launches the calling thread makes itself, each making its GPU current and
 * launching its setup and then its bands in order, each band's kernel and copy on the GPU's
 * streams as in stage 40, the last copy followed by the event bands_copied. The calling thread
 * joins the others once their launches are made (not their work: that is still under way on the
 * GPUs). Then the wait for every GPU's last copy. */

/* What one thread launches: one GPU's share of the frame. */
struct gpu_launch {
    const struct frame_resources *frame;
    const struct gpu_slice *gpu;
    dim3 threads;
    int sphere_count, width, height;
};

/* One GPU's setup and bands, each band's kernel and copy on the GPU's streams, from whichever
 * host thread: the GPU is made this thread's current device first. */
static void launch_gpu_bands(const struct gpu_launch *launch)
{
    const struct frame_resources *frame = launch->frame;
    const struct gpu_slice *gpu = launch->gpu;
    const size_t row_bytes = (size_t)launch->width * 3;
    CUDA_CHECK(cudaSetDevice(gpu->device));
    /* Recorded in the GPU's legacy default stream, which its bands' streams (cudaStreamCreate:
     * blocking) wait for; so do the setup's kernels, launched there too, and the scene's upload
     * before them (upload.cuh). */
    CUDA_CHECK(cudaEventRecord(gpu->bands_start, 0));
    launch_setup(frame, gpu, launch->sphere_count, launch->width, launch->height);
    for (int b = 0; b < gpu->bands; b++) {
        const int first_row = gpu->first_row + b * gpu->band_rows;
        const int end_row = first_row + gpu->band_rows < gpu->end_row ? first_row + gpu->band_rows
                                                                      : gpu->end_row;
        cudaStream_t stream = gpu->streams[b % STREAM_COUNT];
        launch_render(frame, gpu, launch->threads, stream, launch->sphere_count, launch->width,
                      launch->height, first_row, end_row);
        CUDA_CHECK(cudaEventRecord(gpu->band_rendered[b], stream));
        /* The copy waits for this band's kernel, and no kernel waits for it. */
        CUDA_CHECK(cudaStreamWaitEvent(gpu->copy_stream, gpu->band_rendered[b], 0));
        CUDA_CHECK(cudaMemcpyAsync(frame->framebuffer + (size_t)first_row * row_bytes,
                                   gpu->device_framebuffer + (size_t)first_row * row_bytes,
                                   (size_t)(end_row - first_row) * row_bytes,
                                   cudaMemcpyDeviceToHost, gpu->copy_stream));
    }
    CUDA_CHECK(cudaEventRecord(gpu->bands_copied, gpu->copy_stream));
}

static void *gpu_thread(void *launch)
{
    launch_gpu_bands((const struct gpu_launch *)launch);
    return NULL;
}

/* Starts a thread for every GPU but the first, launches the first GPU's share itself, and joins
 * the others; the first GPU is the current device again at the end. With one GPU, no thread:
 * stage 21's launches. A thread that cannot be made ends the program in one line. */
static void launch_bands(const struct frame_resources *frame, dim3 threads, int sphere_count,
                         int width, int height)
{
    pthread_t thread[MAX_GPUS];
    struct gpu_launch launch[MAX_GPUS];
    for (int g = 0; g < frame->gpu_count; g++) {
        launch[g].frame = frame;
        launch[g].gpu = &frame->gpus[g];
        launch[g].threads = threads;
        launch[g].sphere_count = sphere_count;
        launch[g].width = width;
        launch[g].height = height;
    }
    for (int g = 1; g < frame->gpu_count; g++) {
        const int error = pthread_create(&thread[g], NULL, gpu_thread, &launch[g]);
        if (error != 0) {
            fprintf(stderr, "%s: error: pthread_create for GPU %d's launches failed: %s\n",
                    stage_manifest.name, frame->gpus[g].device, strerror(error));
            exit(1);
        }
    }
    launch_gpu_bands(&launch[0]);
    for (int g = 1; g < frame->gpu_count; g++) {
        const int error = pthread_join(thread[g], NULL);
        if (error != 0) {
            fprintf(stderr, "%s: error: pthread_join for GPU %d's launches failed: %s\n",
                    stage_manifest.name, frame->gpus[g].device, strerror(error));
            exit(1);
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
