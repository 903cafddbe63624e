/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */

static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct ray *rays = (struct ray *)host_alloc_or_exit(count * sizeof *rays, "rays");
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    CUDA_CHECK(cudaMemcpy(rays, d->rays, count * sizeof *rays, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(samples, d->samples, count * sizeof *samples, cudaMemcpyDeviceToHost));
    for (size_t p = 0; p < count; ++p) {
        record->origin[p] = rays[p].origin;
        record->direction[p] = rays[p].direction;
        record->done[p] = rays[p].done;
        record->colour[p] = samples[p].colour;
        record->attenuation[p] = samples[p].attenuation;
    }
    free(rays);
    free(samples);
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct ray *rays = (struct ray *)host_alloc_or_exit(count * sizeof *rays, "rays");
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    for (size_t p = 0; p < count; ++p) {
        rays[p].origin = record->origin[p];
        rays[p].direction = record->direction[p];
        rays[p].done = record->done[p];
        samples[p].colour = record->colour[p];
        samples[p].attenuation = record->attenuation[p];
    }
    CUDA_CHECK(cudaMemcpy(d->rays, rays, count * sizeof *rays, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->samples, samples, count * sizeof *samples, cudaMemcpyHostToDevice));
    free(rays);
    free(samples);
}
