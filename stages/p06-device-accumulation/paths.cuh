/* The device memory the kernels work on: allocated and freed by the host, checked after them. */

struct device_paths {
    struct ray_arrays rays;
    struct hit_arrays hits;
    struct sample_arrays samples;
    unsigned long long *sums; /* 3 per pixel */
    struct pt_sphere *spheres;
    struct pt_material *materials;
};

static void paths_alloc(struct device_paths *d, int count, int sphere_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->rays.origin, (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->rays.direction, (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->rays.done, (size_t)count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits.t, (size_t)count * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d->hits.sphere, (size_t)count * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d->samples.colour, (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->samples.attenuation,
                          (size_t)count * sizeof(struct spec_vec3)));
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&d->spheres, (size_t)sphere_count * sizeof(struct pt_sphere)));
    CUDA_CHECK(cudaMalloc((void **)&d->materials,
                          (size_t)sphere_count * sizeof(struct pt_material)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->rays.origin));
    CUDA_CHECK(cudaFree(d->rays.direction));
    CUDA_CHECK(cudaFree(d->rays.done));
    CUDA_CHECK(cudaFree(d->hits.t));
    CUDA_CHECK(cudaFree(d->hits.sphere));
    CUDA_CHECK(cudaFree(d->samples.colour));
    CUDA_CHECK(cudaFree(d->samples.attenuation));
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->spheres));
    CUDA_CHECK(cudaFree(d->materials));
}

/* The kernels allocate nothing: no device heap to check after them. */
static void check_heap(const struct device_paths *) {}
