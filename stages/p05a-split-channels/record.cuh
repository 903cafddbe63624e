/* The kernel benchmark's files (pt_record.h) from and into this stage's layout. */

static void paths_to_record(const struct device_paths *d, struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(record->origin, d->rays.origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->direction, d->rays.direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(record->done, d->rays.done, count * sizeof(int), cudaMemcpyDeviceToHost));
    float *channel = (float *)host_alloc_or_exit(count * sizeof(float), "a channel");
    for (int c = 0; c < 3; ++c) {
        CUDA_CHECK(cudaMemcpy(channel, d->samples.colour[c], count * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (size_t p = 0; p < count; ++p)
            (&record->colour[p].x)[c] = channel[p];
        CUDA_CHECK(cudaMemcpy(channel, d->samples.attenuation[c], count * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (size_t p = 0; p < count; ++p)
            (&record->attenuation[p].x)[c] = channel[p];
    }
    free(channel);
}

static void paths_from_record(struct device_paths *d, const struct pt_record *record)
{
    size_t count = (size_t)record->width * (size_t)record->height;
    CUDA_CHECK(cudaMemcpy(d->rays.origin, record->origin, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.direction, record->direction, count * sizeof(struct spec_vec3),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->rays.done, record->done, count * sizeof(int), cudaMemcpyHostToDevice));
    float *channel = (float *)host_alloc_or_exit(count * sizeof(float), "a channel");
    for (int c = 0; c < 3; ++c) {
        for (size_t p = 0; p < count; ++p)
            channel[p] = (&record->colour[p].x)[c];
        CUDA_CHECK(cudaMemcpy(d->samples.colour[c], channel, count * sizeof(float),
                              cudaMemcpyHostToDevice));
        for (size_t p = 0; p < count; ++p)
            channel[p] = (&record->attenuation[p].x)[c];
        CUDA_CHECK(cudaMemcpy(d->samples.attenuation[c], channel, count * sizeof(float),
                              cudaMemcpyHostToDevice));
    }
    free(channel);
}
