/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernel works on, on the GPU: the sums and the light list. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    struct pt_light *lights;  /* light_count; NULL when the scene has none */
};

static void paths_alloc(struct device_paths *d, int count, int light_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    d->lights = NULL;
    if (light_count > 0)
        CUDA_CHECK(cudaMalloc((void **)&d->lights, (size_t)light_count * sizeof(struct pt_light)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->lights)); /* cudaFree(NULL) does nothing */
}
