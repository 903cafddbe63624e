/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */

static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(record->origin, d->rays.origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->direction, d->rays.direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->done, d->rays.done, count * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->colour, d->samples.colour, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->attenuation, d->samples.attenuation,
                          count * sizeof(struct spec_vec3), cudaMemcpyDeviceToHost));
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(d->rays.origin, record->origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.direction, record->direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.done, record->done, count * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->samples.colour, record->colour, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->samples.attenuation, record->attenuation,
                          count * sizeof(struct spec_vec3), cudaMemcpyHostToDevice));
}
