/* The device memory: two streams of paths, their counters and the pixel sums, allocated and
 * freed by the host. */

/* The streams' bookkeeping, in device memory: only the kernels read and write it, so no launch
 * waits for the host to learn a count. A kernel's blocks run in any order, so a word one thread
 * writes is never read by the kernel that writes it, only by later ones: hence a queue head per
 * stream, each written by the regeneration of the other. */
struct stream_counters {
    int count[2];                    /* the paths in stream 0 and in stream 1 */
    unsigned long long next_path[2]; /* the queue: the first path not started, as the
                                        regeneration of stream 0 or 1 finds it */
    int live;                        /* the paths in the stream being extended */
    int iterations_with_work;        /* iterations whose streams held any path (a metric) */
};

/* What the kernels work on, on the GPU. */
struct device_paths {
    struct path_stream streams[2]; /* in turn the input and the output of an iteration; no
                                      hits: the extension kernel keeps its hit in registers */
    struct stream_counters *counters;
    unsigned long long *sums; /* 3 per pixel */
    int capacity;             /* the slots of each stream */
};

static void stream_alloc(struct path_stream *s, int capacity)
{
    size_t n = (size_t)capacity;
    CUDA_CHECK(cudaMalloc((void **)&s->origin, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->direction, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->attenuation, n * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&s->pixel, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&s->frame, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&s->segment, n * sizeof(int)));
}

static void stream_free(struct path_stream *s)
{
    CUDA_CHECK(cudaFree(s->origin));
    CUDA_CHECK(cudaFree(s->direction));
    CUDA_CHECK(cudaFree(s->attenuation));
    CUDA_CHECK(cudaFree(s->pixel));
    CUDA_CHECK(cudaFree(s->frame));
    CUDA_CHECK(cudaFree(s->segment));
}

static void paths_alloc(struct device_paths *d, int capacity, int pixels)
{
    d->capacity = capacity;
    stream_alloc(&d->streams[0], capacity);
    stream_alloc(&d->streams[1], capacity);
    CUDA_CHECK(cudaMalloc((void **)&d->counters, sizeof(struct stream_counters)));
    CUDA_CHECK(cudaMemset(d->counters, 0, sizeof(struct stream_counters))); /* both empty */
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)pixels * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)pixels * 3 * sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    stream_free(&d->streams[0]);
    stream_free(&d->streams[1]);
    CUDA_CHECK(cudaFree(d->counters));
    CUDA_CHECK(cudaFree(d->sums));
}
