/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernel works on, on the GPU: only the sums. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
};

static void paths_alloc(struct device_paths *d, int count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
}
