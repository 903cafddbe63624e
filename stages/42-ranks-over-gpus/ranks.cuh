/* The ranks: one process a GPU, rank r of a world of N renders the rows stage 40 gave GPU r of N,
 * and the rows come together on rank 0, which copies the frame home and writes the image. The
 * ranks meet through NCCL: rank 0 makes the communicator's id and leaves it in the rendezvous file
 * (common/runtime/ranks.c), the others read it there, and all of them join. Each frame, every
 * other rank sends its rows from its device frame to the same rows of rank 0's (ncclSend,
 * ncclRecv), and rank 0 copies them home after its own. A world of one is stage 40 on one GPU: no
 * communicator, no file, nothing sent. A rank that waits for the others waits at most the
 * rendezvous timeout, then says so and ends (exit status 2): one that has stopped never answers. */

/* Every NCCL call goes through this: a failure names the call, the file, the line and what NCCL
 * said, and ends the program with status 1, as CUDA_CHECK does. */
#define NCCL_CHECK(call)                                                                          \
    do {                                                                                          \
        ncclResult_t nccl_check_result_ = (call);                                                 \
        if (nccl_check_result_ != ncclSuccess)                                                    \
            nccl_check_failed(nccl_check_result_, #call, __FILE__, __LINE__);                     \
    } while (0)

static char rank_label[64] = "rank 0 of 1"; /* who says so, in every line this part prints */

static void nccl_check_failed(ncclResult_t result, const char *call, const char *file, int line)
{
    const char *slash = strrchr(file, '/');
    const char *last = ncclGetLastError(NULL); /* NCCL's own words, one line of them */
    char said[512];
    snprintf(said, sizeof said, "%s", last ? last : "");
    for (char *c = said; *c; ++c)
        if (*c == '\n')
            *c = ' ';
    fprintf(stderr, "%s: error: %s: NCCL call %s failed at %s:%d: %s%s%s\n", stage_manifest.name,
            rank_label, call, slash ? slash + 1 : file, line, ncclGetErrorString(result),
            said[0] ? ": " : "", said);
    exit(1);
}

/* The rows of rank `rank` of `size`, on its GPU (device): stage 40's frame on that one GPU, its
 * slice cut down to the rows stage 40 gives GPU `rank` of `size`, from height * rank / size up to
 * height * (rank + 1) / size (ranks_first_row), as even as whole rows allow (size at most height:
 * every rank has a row), and into bands as stage 21 cut the frame: in a world of one, stage 21's
 * bands. */
static void split_rows_of_rank(struct frame_resources *frame, int device, int rank, int size,
                               int height)
{
    split_rows(frame, device, 1, height);
    set_slice_rows(&frame->gpus[0], ranks_first_row(rank, size, height),
                   ranks_first_row(rank + 1, size, height));
}

/* A wait on the other ranks is watched: past the rendezvous timeout an alarm ends the process
 * with one line (a signal handler may only write it). */
static char watchdog_line[512];
static size_t watchdog_length;

static void watchdog_fired(int signal_number)
{
    (void)signal_number;
    ssize_t written = write(STDERR_FILENO, watchdog_line, watchdog_length);
    (void)written;
    _exit(2);
}

static void watch_others(const struct ranks *ranks, const char *waiting_for)
{
    watchdog_length = (size_t)snprintf(
        watchdog_line, sizeof watchdog_line,
        "%s: error: %s waited %d s for %s: has another rank stopped? (--rendezvous-timeout)\n",
        stage_manifest.name, rank_label, ranks->timeout_seconds, waiting_for);
    if (watchdog_length >= sizeof watchdog_line)
        watchdog_length = sizeof watchdog_line - 1;
    signal(SIGALRM, watchdog_fired);
    alarm((unsigned int)ranks->timeout_seconds);
}

static void stop_watching(void)
{
    alarm(0);
}

/* The world this process is one rank of, and what it needs to send or gather the rows. */
struct world {
    struct ranks ranks;         /* this rank, the world's size, the rendezvous file */
    ncclComm_t comm;            /* NULL in a world of one */
    cudaStream_t gather_stream; /* the rows' sends and receives, after this rank's bands */
    cudaEvent_t gather_start;   /* rank 0: its own bands rendered, the receives begin */
    cudaEvent_t gathered;       /* rank 0: every other rank's rows are in its device frame */
    float *spans;               /* on the device: what the ranks' spans are reduced in */
};

/* Who this process is: the launcher's environment and the options, as main() read them (there
 * they were checked, so here they cannot fail). */
static void join_world(struct world *world, const struct render_job *job)
{
    char error[1024];
    if (ranks_from_environment(ranks_getenv, job->rendezvous, job->rendezvous_timeout,
                               &world->ranks, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(2);
    }
    snprintf(rank_label, sizeof rank_label, "rank %d of %d", world->ranks.rank, world->ranks.size);
    world->comm = NULL;
}

/* What this rank sends or gathers the rows with: a stream, events, the spans' buffer. */
static void allocate_world(struct world *world)
{
    CUDA_CHECK(cudaStreamCreate(&world->gather_stream));
    CUDA_CHECK(cudaEventCreate(&world->gather_start));
    CUDA_CHECK(cudaEventCreate(&world->gathered));
    CUDA_CHECK(cudaMalloc((void **)&world->spans, 2 * sizeof(float)));
    CUDA_CHECK(cudaMemset(world->spans, 0, 2 * sizeof(float)));
}

/* The gather's stream and events, the spans' buffer, and the communicator (NCCL): rank 0's id
 * through the rendezvous file, then every rank joins, then one small gather and one reduce, so that
 * NCCL connects the ranks now and not in the first frame's phases; rank 0 then removes the file,
 * which every rank has read. No communicator in a world of one. */
static void make_communicator(struct world *world)
{
    const struct ranks *ranks = &world->ranks;
    allocate_world(world);
    if (ranks->size == 1)
        return;
    ncclUniqueId id;
    char error[1024];
    if (ranks->rank == 0) {
        NCCL_CHECK(ncclGetUniqueId(&id));
        if (ranks_publish(ranks, (const unsigned char *)&id, sizeof id, error, sizeof error)) {
            fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
            exit(2);
        }
    } else if (ranks_await(ranks, (unsigned char *)&id, sizeof id, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(2);
    }
    watch_others(ranks, "every rank to join the communicator");
    NCCL_CHECK(ncclCommInitRank(&world->comm, ranks->size, id, ranks->rank));
    NCCL_CHECK(ncclGroupStart());
    if (ranks->rank == 0) {
        for (int r = 1; r < ranks->size; r++)
            NCCL_CHECK(ncclRecv(world->spans, 1, ncclFloat, r, world->comm, world->gather_stream));
    } else {
        NCCL_CHECK(ncclSend(world->spans, 1, ncclFloat, 0, world->comm, world->gather_stream));
    }
    NCCL_CHECK(ncclGroupEnd());
    NCCL_CHECK(ncclAllReduce(world->spans, world->spans, 2, ncclFloat, ncclMax, world->comm,
                             world->gather_stream));
    CUDA_CHECK(cudaStreamSynchronize(world->gather_stream));
    stop_watching();
    if (ranks->rank == 0)
        remove(ranks->rendezvous);
}

/* After this rank's bands are launched: its rows to rank 0, once all its bands are rendered; on
 * rank 0, once its own bands are rendered too (its copy home of their rows keeps the link busy
 * meanwhile, and its kernels keep the GPU's multiprocessors), every other rank's rows into its
 * device frame, then home on the copy stream after its own bands' copies. */
static void launch_gather(const struct frame_resources *frame, const struct world *world, int width,
                          int height)
{
    const struct ranks *ranks = &world->ranks;
    if (ranks->size == 1)
        return;
    const struct gpu_slice *gpu = &frame->gpus[0];
    const size_t row_bytes = (size_t)width * 3;
    for (int b = 0; b < gpu->bands; b++)
        CUDA_CHECK(cudaStreamWaitEvent(world->gather_stream, gpu->band_rendered[b], 0));
    if (ranks->rank != 0) {
        NCCL_CHECK(ncclSend(gpu->device_framebuffer + (size_t)gpu->first_row * row_bytes,
                            (size_t)(gpu->end_row - gpu->first_row) * row_bytes, ncclUint8, 0,
                            world->comm, world->gather_stream));
        return;
    }
    /* Rank 0: rank r's rows land where the kernel of one GPU would have written them. */
    CUDA_CHECK(cudaEventRecord(world->gather_start, world->gather_stream));
    NCCL_CHECK(ncclGroupStart());
    for (int r = 1; r < ranks->size; r++) {
        const int first_row = ranks_first_row(r, ranks->size, height);
        const int end_row = ranks_first_row(r + 1, ranks->size, height);
        NCCL_CHECK(ncclRecv(gpu->device_framebuffer + (size_t)first_row * row_bytes,
                            (size_t)(end_row - first_row) * row_bytes, ncclUint8, r, world->comm,
                            world->gather_stream));
    }
    NCCL_CHECK(ncclGroupEnd());
    CUDA_CHECK(cudaEventRecord(world->gathered, world->gather_stream));
    /* The other ranks' rows follow rank 0's, to the last: one copy home. */
    CUDA_CHECK(cudaStreamWaitEvent(gpu->copy_stream, world->gathered, 0));
    CUDA_CHECK(cudaMemcpyAsync(frame->framebuffer + (size_t)gpu->end_row * row_bytes,
                               gpu->device_framebuffer + (size_t)gpu->end_row * row_bytes,
                               (size_t)(height - gpu->end_row) * row_bytes, cudaMemcpyDeviceToHost,
                               gpu->copy_stream));
}

/* Until this rank's part of the gather is done: on rank 0, every row in its device frame; on the
 * others, their rows sent. Returns, on rank 0, the gather's span on its GPU's events in ms: from
 * its own last band rendered to the last row received (the transfer, and any wait for a rank
 * whose kernels end later); 0 on the others. */
static float wait_for_gather(const struct world *world)
{
    const struct ranks *ranks = &world->ranks;
    if (ranks->size == 1)
        return 0;
    float gather_ms = 0;
    watch_others(ranks, ranks->rank == 0 ? "the other ranks' rows" : "rank 0 to take its rows");
    if (ranks->rank == 0) {
        CUDA_CHECK(cudaEventSynchronize(world->gathered));
        CUDA_CHECK(cudaEventElapsedTime(&gather_ms, world->gather_start, world->gathered));
    } else {
        CUDA_CHECK(cudaStreamSynchronize(world->gather_stream));
    }
    stop_watching();
    return gather_ms;
}

/* Each rank's kernels' span: the largest over the world into span[0], the smallest (the largest
 * of its negation) into span[1], in one all-reduce of two floats, on every rank. */
static void reduce_spans(const struct world *world, float spans[2])
{
    if (world->ranks.size == 1)
        return;
    spans[1] = -spans[1];
    watch_others(&world->ranks, "the other ranks' spans");
    CUDA_CHECK(cudaMemcpyAsync(world->spans, spans, 2 * sizeof(float), cudaMemcpyHostToDevice,
                               world->gather_stream));
    NCCL_CHECK(ncclAllReduce(world->spans, world->spans, 2, ncclFloat, ncclMax, world->comm,
                             world->gather_stream));
    CUDA_CHECK(cudaMemcpyAsync(spans, world->spans, 2 * sizeof(float), cudaMemcpyDeviceToHost,
                               world->gather_stream));
    CUDA_CHECK(cudaStreamSynchronize(world->gather_stream));
    stop_watching();
    spans[1] = -spans[1];
}

/* With the device free phase: the stream, events and buffer, and the communicator. */
static void free_world(struct world *world)
{
    CUDA_CHECK(cudaStreamDestroy(world->gather_stream));
    CUDA_CHECK(cudaEventDestroy(world->gather_start));
    CUDA_CHECK(cudaEventDestroy(world->gathered));
    CUDA_CHECK(cudaFree(world->spans));
    if (world->comm) {
        watch_others(&world->ranks, "the other ranks to leave the communicator");
        NCCL_CHECK(ncclCommDestroy(world->comm));
        stop_watching();
    }
}
