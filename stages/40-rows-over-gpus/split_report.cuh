/* What a run reports of its split, from the last frame's events: which rows the first GPU
 * rendered, and how far apart the GPUs ended, their kernels and their copies. */

/* The split the last frame was rendered with (with --frames 1, the first frame's) and how evenly
 * it spread the time, as metrics: rows_first_gpu, the first GPU's rows; each GPU's spans on its
 * own events from its bands_start, the slowest and the fastest of them: to its last band rendered
 * (kernel_events_last_frame, kernel_events_last_frame_fastest, stage 40's kernel_events and
 * kernel_events_fastest on that frame) and to its last copy's end (copies_events_last_frame,
 * copies_events_last_frame_fastest: what the re-split balances). */
static void report_split(const struct frame_resources *frame, struct report *report)
{
    float kernels_ms = 0, kernels_fastest_ms = 0, copies_ms = 0, copies_fastest_ms = 0;
    for (int g = 0; g < frame->gpu_count; g++) {
        const struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        float kernel_ms = 0, copy_ms;
        for (int b = 0; b < gpu->bands; b++) {
            float band_ms;
            CUDA_CHECK(cudaEventElapsedTime(&band_ms, gpu->bands_start, gpu->band_rendered[b]));
            kernel_ms = band_ms > kernel_ms ? band_ms : kernel_ms;
        }
        CUDA_CHECK(cudaEventElapsedTime(&copy_ms, gpu->bands_start, gpu->bands_copied));
        kernels_ms = kernel_ms > kernels_ms ? kernel_ms : kernels_ms;
        kernels_fastest_ms =
            g == 0 || kernel_ms < kernels_fastest_ms ? kernel_ms : kernels_fastest_ms;
        copies_ms = copy_ms > copies_ms ? copy_ms : copies_ms;
        copies_fastest_ms = g == 0 || copy_ms < copies_fastest_ms ? copy_ms : copies_fastest_ms;
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
    report_metric(report, "rows_first_gpu", frame->gpus[0].end_row - frame->gpus[0].first_row,
                  "rows");
    report_metric(report, "kernel_events_last_frame", kernels_ms * 1000.0, "us");
    report_metric(report, "kernel_events_last_frame_fastest", kernels_fastest_ms * 1000.0, "us");
    report_metric(report, "copies_events_last_frame", copies_ms * 1000.0, "us");
    report_metric(report, "copies_events_last_frame_fastest", copies_fastest_ms * 1000.0, "us");
}
