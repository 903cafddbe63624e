/* The device memory the kernels work on: allocated and freed by the host, checked after them. */

/* Room for every live scatter record of a full GPU (about 2,048 threads on each of up to
 * ~150 SMs at 64 bytes each) many times over: device malloc fails when its heap is full. */
#define MALLOC_HEAP_BYTES ((size_t)256 << 20)

struct device_paths {
    struct ray *rays;
    struct hit *hits;
    struct sample *samples;
    struct pt_sphere *spheres;
    struct pt_material *materials;
    int *heap_exhausted;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, MALLOC_HEAP_BYTES));
    CUDA_CHECK(cudaMalloc((void **)&d->rays, (size_t)count * sizeof(struct ray)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits, (size_t)count * sizeof(struct hit)));
    CUDA_CHECK(cudaMalloc((void **)&d->samples, (size_t)count * sizeof(struct sample)));
    CUDA_CHECK(cudaMalloc((void **)&d->spheres, (size_t)sphere_count * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->materials,
                          (size_t)sphere_count * sizeof(struct pt_material)));
    CUDA_CHECK(cudaMalloc((void **)&d->heap_exhausted, sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->rays));
    CUDA_CHECK(cudaFree(d->hits));
    CUDA_CHECK(cudaFree(d->samples));
    CUDA_CHECK(cudaFree(d->spheres));
    CUDA_CHECK(cudaFree(d->materials));
    CUDA_CHECK(cudaFree(d->heap_exhausted));
}

static void check_heap(const struct device_paths *d)
{
    int exhausted = 0;
    CUDA_CHECK(cudaMemcpy(&exhausted, d->heap_exhausted, sizeof exhausted, cudaMemcpyDeviceToHost));
    if (exhausted) {
        fprintf(stderr, "%s: error: device malloc failed: its heap (%zu bytes) is full\n",
                stage_manifest.name, MALLOC_HEAP_BYTES);
        exit(1);
    }
}
