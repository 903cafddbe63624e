/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernel works on, on the GPU: the sums and the counter of paths handed out. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    unsigned long long *next_path;
};

static void paths_alloc(struct device_paths *d, int count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->next_path, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->next_path, 0, sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->next_path));
}
