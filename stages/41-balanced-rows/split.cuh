/* The rows re-split from the last frame's times, before each frame after the first: every GPU
 * keeps one contiguous slice of rows (so that its setup still bins only its own rows' tiles), and
 * the boundaries between the slices move to where the GPUs are predicted to end together.
 *
 * A GPU's time is its span on its own events, from its bands_start to its bands_copied (after its
 * last band's copy): what the frame waits for on that GPU, its kernels where they take longer than
 * its copies, its copies where they take longer than its kernels. The prediction takes the cost
 * of a row as uniform within each slice of the last frame (the slice's time over its rows), and
 * puts boundary k where the cost of the rows above it reaches k / N of the whole frame's, rounded
 * to the frame's unit of rows (split_unit, frame.cuh: here whole tile rows, so that no tile is
 * binned by two GPUs; single rows in an image of fewer tile rows than GPUs), at least one unit a
 * GPU. Which GPU renders a row changes no bit of it. */

/* The split as a list of boundaries: GPU g renders rows bounds[g] .. bounds[g + 1] - 1, bounds[0]
 * = 0 and bounds[gpu_count] = height, each GPU at least one row; spans[g] is GPU g's time over
 * its rows. Writes the balanced split to balanced in the same form: every inner boundary a
 * multiple of unit, every GPU at least unit rows but the last (which may end on a short tile
 * row); the split as it was when a time is not positive. The image must have at least gpu_count
 * units. Host code, plain C: no GPU needed to try it. */
static void balanced_bounds(int gpu_count, const int *bounds, const double *spans, int unit,
                            int *balanced)
{
    const int height = bounds[gpu_count];
    const int units = (height + unit - 1) / unit; /* the last one may be short */
    double total = 0;
    int usable = 1;
    for (int g = 0; g < gpu_count; g++) {
        usable = usable && spans[g] > 0; /* false for a NaN too */
        total += spans[g];
    }
    for (int k = 0; k <= gpu_count; k++) {
        balanced[k] = bounds[k];
    }
    if (!usable) {
        return;
    }
    for (int k = 1; k < gpu_count; k++) {
        /* The slice g in which the cost from the top reaches k / N of the total, and the row
         * where it does, at g's cost per row. */
        const double target = total * k / gpu_count;
        double above = 0; /* the time of the slices above g */
        int g = 0;
        while (g < gpu_count - 1 && above + spans[g] < target) {
            above += spans[g];
            g++;
        }
        const double row =
            bounds[g] + (target - above) / spans[g] * (double)(bounds[g + 1] - bounds[g]);
        /* The nearest whole unit, then at least one unit for this GPU and for each after it. */
        int boundary = (int)(row / unit + 0.5) * unit;
        const int lowest = balanced[k - 1] + unit;
        const int highest = (units - (gpu_count - k)) * unit;
        boundary = boundary < lowest ? lowest : boundary;
        boundary = boundary > highest ? highest : boundary;
        balanced[k] = boundary;
    }
}

/* Before a frame after the first: each GPU's span of the frame before (its events have all
 * completed: wait_for_copies waited for every GPU's last copy), and the rows re-split from them,
 * each GPU's cut into its bands again. Its device frame, bins and tables are the whole image's, so
 * nothing is allocated; its setup bins the tiles of its new rows before its bands. One GPU keeps
 * every row. */
static void balance_rows(struct frame_resources *frame)
{
    const int gpu_count = frame->gpu_count;
    if (gpu_count < 2) {
        return;
    }
    int bounds[MAX_GPUS + 1], balanced[MAX_GPUS + 1];
    double spans[MAX_GPUS];
    for (int g = 0; g < gpu_count; g++) {
        struct gpu_slice *gpu = &frame->gpus[g];
        CUDA_CHECK(cudaSetDevice(gpu->device));
        float span_ms;
        CUDA_CHECK(cudaEventElapsedTime(&span_ms, gpu->bands_start, gpu->bands_copied));
        spans[g] = span_ms;
        bounds[g] = gpu->first_row;
    }
    CUDA_CHECK(cudaSetDevice(frame->gpus[0].device));
    bounds[gpu_count] = frame->gpus[gpu_count - 1].end_row;
    balanced_bounds(gpu_count, bounds, spans, split_unit(frame), balanced);
    for (int g = 0; g < gpu_count; g++) {
        set_slice_rows(&frame->gpus[g], balanced[g], balanced[g + 1]);
    }
}
