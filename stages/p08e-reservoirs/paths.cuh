/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernels work on, on the GPU: the sums, the light list, and the reservoirs' buffers,
 * structures of arrays in one allocation, laid out as build/pt-reference lays them out on the
 * host (pt_restir_carve, pathtrace/pt_reservoirs.h): 30 float arrays, then 4 int arrays, one
 * entry a pixel each. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    struct pt_light *lights;  /* light_count; NULL when the scene has none */
    struct pt_primary_buffers hits[2];          /* frame s writes hits[s % 2], reads the other */
    struct pt_reservoir_buffers current, final; /* passes 1-2 write current, pass 3 final */
    float *reservoirs;                          /* every array of hits, current and final */
};

static void paths_alloc(struct device_paths *d, int count, int light_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    d->lights = NULL;
    if (light_count > 0)
        CUDA_CHECK(cudaMalloc((void **)&d->lights, (size_t)light_count * sizeof(struct pt_light)));
    size_t pixels = (size_t)count;
    CUDA_CHECK(cudaMalloc((void **)&d->reservoirs, pixels * PT_RESTIR_PIXEL_BYTES)); /* 136 B */
    pt_restir_carve(d->reservoirs, pixels, d->hits, &d->current, &d->final);
    /* Before frame 0, `final` is pt_restir_empty() at every pixel (light -1, the rest 0), as in
     * build/pt-reference: frame 0 merges no previous frame. The other arrays are written by
     * every frame before they are read. */
    CUDA_CHECK(cudaMemset(d->final.normal_x, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.normal_y, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.normal_z, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.weight_sum, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.target, 0, pixels * sizeof(float)));
    CUDA_CHECK(cudaMemset(d->final.light, 0xff, pixels * sizeof(int))); /* every byte 0xff: -1 */
    CUDA_CHECK(cudaMemset(d->final.count, 0, pixels * sizeof(int)));
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->lights)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree(d->reservoirs));
}
