/* The frame's rows over the GPUs, for any frame made of a struct gpu_slice a GPU (first_row,
 * end_row, band_rows, bands, device) in a struct frame_resources (gpu_count, gpus): a GPU's rows
 * cut into bands, and the first frame's even split. */

/* A GPU's rows, first_row .. end_row - 1 (at least one), cut into bands as stage 21 cut the frame:
 * at most BAND_COUNT bands of band_rows rows, the last one shorter where they do not divide. */
static void set_slice_rows(struct gpu_slice *gpu, int first_row, int end_row)
{
    gpu->first_row = first_row;
    gpu->end_row = end_row;
    const int rows = end_row - first_row;
    gpu->band_rows = (rows + BAND_COUNT - 1) / BAND_COUNT;
    gpu->bands = (rows + gpu->band_rows - 1) / gpu->band_rows;
}

/* The first frame's rows over the GPUs: GPU g (device first_device + g) renders the rows from
 * height * g / gpu_count up to height * (g + 1) / gpu_count, as even as whole rows allow
 * (gpu_count at most height: every GPU has a row): with one GPU, stage 21's bands. */
static void split_rows(struct frame_resources *frame, int first_device, int gpu_count, int height)
{
    frame->gpu_count = gpu_count;
    for (int g = 0; g < gpu_count; g++) {
        struct gpu_slice *gpu = &frame->gpus[g];
        gpu->device = first_device + g;
        set_slice_rows(gpu, (int)((long long)height * g / gpu_count),
                       (int)((long long)height * (g + 1) / gpu_count));
    }
}
