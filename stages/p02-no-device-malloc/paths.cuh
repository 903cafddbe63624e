/* The device memory the kernels work on: allocated and freed by the host, checked after them. */

struct device_paths {
    struct ray *rays;
    struct hit *hits;
    struct sample *samples;
    struct pt_sphere *spheres;
    struct pt_material *materials;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->rays, (size_t)count * sizeof(struct ray)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits, (size_t)count * sizeof(struct hit)));
    CUDA_CHECK(cudaMalloc((void **)&d->samples, (size_t)count * sizeof(struct sample)));
    CUDA_CHECK(cudaMalloc((void **)&d->spheres, (size_t)sphere_count * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->materials,
                          (size_t)sphere_count * sizeof(struct pt_material)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->rays));
    CUDA_CHECK(cudaFree(d->hits));
    CUDA_CHECK(cudaFree(d->samples));
    CUDA_CHECK(cudaFree(d->spheres));
    CUDA_CHECK(cudaFree(d->materials));
}

/* The kernels allocate nothing: no device heap to check after them. */
static void check_heap(const struct device_paths *) {}
