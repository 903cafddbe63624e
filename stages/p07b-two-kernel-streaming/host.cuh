/* The host half: the streams' capacity, the iterations enqueued in batches one ahead of the GPU
 * until no work is left, the sums copied at the end, every phase timed into the report. */

#define STREAM_WAVES 4      /* a stream's slots, in GPU-fulls of threads: stream_capacity() */
#define BATCH_ITERATIONS 4  /* iterations enqueued between two looks at the work left */

/* A stream's slots. Every launch covers them all (threads past the live count leave at once),
 * so the capacity sets both the work of a full iteration and the cost of an empty one. It is
 * STREAM_WAVES times the threads the GPU holds at once running the extension kernel (the one with
 * the most registers, the fewest resident threads): a full stream is four rounds of blocks on
 * every SM, so the last round of a launch, partly empty, costs at most a quarter of it, and the
 * launches of P paths of D segments number about 2 P D / capacity, plus the drain at the end.
 * Never more than all the paths: a small render has nothing to fill more slots with. */
static int stream_capacity(unsigned long long total_paths)
{
    int device, sms, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, (const void *)extend_kernel, BLOCK_THREADS, 0));
    unsigned long long resident =
        (unsigned long long)sms * (unsigned long long)(blocks_per_sm > 0 ? blocks_per_sm : 1) *
        BLOCK_THREADS;
    unsigned long long capacity = STREAM_WAVES * resident;
    return (int)(capacity < total_paths ? capacity : total_paths);
}

/* BATCH_ITERATIONS iterations, then `done` recorded. An iteration is two launches: it extends
 * the input stream's paths by a segment into the output stream, refills the output from the queue
 * and swaps the two. The refill comes last so that the batch's last kernel knows whether the next iteration
 * has any path: it writes that into *work_left, host memory the host reads after `done`. */
static void enqueue_batch(const struct device_paths *d, const struct pt_world *world,
                          unsigned long long total_paths, int *input, int *work_left,
                          cudaEvent_t done)
{
    for (int i = 0; i < BATCH_ITERATIONS; ++i) {
        int output = 1 - *input;
        launch_extend(d, world, *input);
        launch_regenerate(d, world, output, total_paths,
                          i == BATCH_ITERATIONS - 1 ? work_left : NULL);
        *input = output;
    }
    CUDA_CHECK(cudaEventRecord(done, 0));
}

void stage_render(struct pt_render_job *job)
{
    struct report *report = job->report;
    const struct pt_world *world = &job->world;
    int count = job->width * job->height;
    size_t sum_bytes = (size_t)count * 3 * sizeof(unsigned long long);
    unsigned long long total_paths = (unsigned long long)count * (unsigned long long)job->samples;

    double start = timer_now_us();
    unsigned long long *sums = (unsigned long long *)host_alloc_or_exit(sum_bytes, "pixel sums");
    /* One word per batch parity, in pinned host memory the GPU writes directly (mapped): batch k
     * + 2, which reuses batch k's word, is enqueued only after the host has read it. */
    volatile int *work_left;
    CUDA_CHECK(cudaHostAlloc((void **)&work_left, 2 * sizeof(int), cudaHostAllocMapped));
    work_left[0] = work_left[1] = 1;
    int *device_work_left;
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&device_work_left, (void *)work_left, 0));
    report_phase_since(report, PHASE_HOST_ALLOCATION, start);

    start = timer_now_us();
    struct device_paths d;
    paths_alloc(&d, stream_capacity(total_paths), count);
    cudaEvent_t batch_done[2];
    CUDA_CHECK(cudaEventCreate(&batch_done[0]));
    CUDA_CHECK(cudaEventCreate(&batch_done[1]));
    report_phase_since(report, PHASE_DEVICE_ALLOCATION, start);

    start = timer_now_us();
    report->bytes_to_device = paths_upload_scene(&d, world);
    report_phase_since(report, PHASE_HOST_TO_DEVICE, start);

    gpu_kernel_resources(report, (const void *)extend_kernel, BLOCK_THREADS, 0);
    /* An iteration with work traces a segment of every path in the stream, and a full stream
     * while paths are queued; past this many iterations the loop could only be a bug. */
    unsigned long long most_iterations = total_paths * (unsigned long long)job->max_depth /
                                             (unsigned long long)d.capacity +
                                         (unsigned long long)job->max_depth + 3 * BATCH_ITERATIONS;
    int batches = 0;
    struct kernel_timer timer;
    kernel_timer_start(&timer);
    launch_regenerate(&d, world, 0, total_paths, NULL); /* the first input: the first paths */
    int input = 0;
    enqueue_batch(&d, world, total_paths, &input, &device_work_left[0], batch_done[0]);
    for (int batch = 0;; ++batch) {
        /* The next batch goes in before the host waits for this one: the GPU always has work
         * queued behind what it runs, and never waits for the host. */
        enqueue_batch(&d, world, total_paths, &input, &device_work_left[(batch + 1) % 2],
                      batch_done[(batch + 1) % 2]);
        batches = batch + 2;
        CUDA_CHECK(cudaEventSynchronize(batch_done[batch % 2]));
        if (!work_left[batch % 2])
            break; /* no path live and none queued: the batch just enqueued finds nothing */
        if ((unsigned long long)batches * BATCH_ITERATIONS > most_iterations) {
            fprintf(stderr, "%s: error: the streams still hold paths after %d iterations\n",
                    stage_manifest.name, batches * BATCH_ITERATIONS);
            exit(1);
        }
    }
    kernel_timer_stop(&timer, report);

    start = timer_now_us();
    CUDA_CHECK(cudaMemcpy(sums, d.sums, sum_bytes, cudaMemcpyDeviceToHost));
    struct stream_counters counters; /* after the loop, for its metrics; not in bytes back,
                                        which the track's tests hold to the sums */
    CUDA_CHECK(cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost));
    report_phase_since(report, PHASE_DEVICE_TO_HOST, start);
    report->bytes_to_host = sum_bytes;
    report_metric(report, "stream_capacity", d.capacity, "paths");
    report_metric(report, "iterations", batches * BATCH_ITERATIONS, "iterations");
    report_metric(report, "empty_iterations",
                  batches * BATCH_ITERATIONS - counters.iterations_with_work, "iterations");

    pt_render_job_sums_ready(job, sums);

    start = timer_now_us();
    paths_free(&d);
    CUDA_CHECK(cudaEventDestroy(batch_done[0]));
    CUDA_CHECK(cudaEventDestroy(batch_done[1]));
    report_phase_since(report, PHASE_DEVICE_FREE, start);

    start = timer_now_us();
    free(sums);
    CUDA_CHECK(cudaFreeHost((void *)work_left));
    report_phase_since(report, PHASE_HOST_FREE, start);
}
