/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */

static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    CUDA_CHECK(cudaMemcpy(record->origin, d->rays.origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->direction, d->rays.direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->done, d->rays.done, count * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(samples, d->samples, count * sizeof *samples, cudaMemcpyDeviceToHost));
    for (size_t p = 0; p < count; ++p) {
        record->colour[p] = samples[p].colour;
        record->attenuation[p] = samples[p].attenuation;
    }
    free(samples);
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    struct sample *samples = (struct sample *)host_alloc_or_exit(count * sizeof *samples, "samples");
    for (size_t p = 0; p < count; ++p) {
        samples[p].colour = record->colour[p];
        samples[p].attenuation = record->attenuation[p];
    }
    CUDA_CHECK(cudaMemcpy(d->rays.origin, record->origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.direction, record->direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.done, record->done, count * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->samples, samples, count * sizeof *samples, cudaMemcpyHostToDevice));
    free(samples);
}
