/* The device memory the kernels work on: allocated and freed by the host. */

/* What the kernels work on, on the GPU: the sums, the light list, and the per-pixel buffers in
 * one allocation of the same 136 bytes a pixel as p08e's: the camera hits of two frames where
 * p08e has them, a structure of arrays (20 float arrays), then the reservoirs as two arrays of
 * 28-byte records (seed 003's `Reservoir* initial_samples`), `current` then `final`. */
struct device_paths {
    unsigned long long *sums; /* 3 per pixel */
    struct pt_light *lights;  /* light_count; NULL when the scene has none */
    struct pt_primary_buffers hits[2]; /* frame s writes hits[s % 2], reads the other */
    struct pt_restir_reservoir *current, *final; /* passes 1-2 write current, pass 3 final */
    float *reservoirs;                           /* hits, current and final */
};

/* Points the 10 arrays of one set of hits into block, pixels entries each. */
static void carve_hits(float *block, size_t pixels, struct pt_primary_buffers *h)
{
    float **arrays[10] = {&h->point_x,  &h->point_y,  &h->point_z,  &h->normal_x, &h->normal_y,
                          &h->normal_z, &h->albedo_r, &h->albedo_g, &h->albedo_b, &h->depth};
    for (int a = 0; a < 10; ++a)
        *arrays[a] = block + (size_t)a * pixels;
}

static void paths_alloc(struct device_paths *d, int count, int light_count)
{
    CUDA_CHECK(cudaMalloc((void **)&d->sums, (size_t)count * 3 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d->sums, 0, (size_t)count * 3 * sizeof(unsigned long long)));
    d->lights = NULL;
    if (light_count > 0)
        CUDA_CHECK(cudaMalloc((void **)&d->lights, (size_t)light_count * sizeof(struct pt_light)));
    size_t pixels = (size_t)count;
    CUDA_CHECK(cudaMalloc((void **)&d->reservoirs, pixels * PT_RESTIR_PIXEL_BYTES)); /* 136 B */
    carve_hits(d->reservoirs, pixels, &d->hits[0]);
    carve_hits(d->reservoirs + 10 * pixels, pixels, &d->hits[1]);
    d->current = (struct pt_restir_reservoir *)(d->reservoirs + 20 * pixels); /* 80 B a pixel on */
    d->final = d->current + pixels;
    /* Before frame 0, `final` is pt_restir_empty() at every pixel (empty_kernel); the other
     * buffers are written by every frame before they are read. */
    empty_kernel<<<(count + BLOCK_THREADS - 1) / BLOCK_THREADS, BLOCK_THREADS>>>(d->final, count);
    CUDA_CHECK_LAUNCH("empty_kernel");
}

static void paths_free(struct device_paths *d)
{
    CUDA_CHECK(cudaFree(d->sums));
    CUDA_CHECK(cudaFree(d->lights)); /* cudaFree(NULL) does nothing */
    CUDA_CHECK(cudaFree(d->reservoirs));
}
