/* A stream's arrays on the host, for the kernel benchmark's files (pt_record.h). */

static void host_stream_alloc(struct path_stream *s, int capacity)
{
    size_t n = (size_t)(capacity > 0 ? capacity : 1);
    s->origin = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->direction = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->attenuation = (struct spec_vec3 *)host_alloc_or_exit(n * sizeof(struct spec_vec3), "paths");
    s->pixel = (unsigned *)host_alloc_or_exit(n * sizeof(unsigned), "paths");
    s->frame = (unsigned *)host_alloc_or_exit(n * sizeof(unsigned), "paths");
    s->segment = (int *)host_alloc_or_exit(n * sizeof(int), "paths");
}

static void host_stream_free(struct path_stream *s)
{
    free(s->origin);
    free(s->direction);
    free(s->attenuation);
    free(s->pixel);
    free(s->frame);
    free(s->segment);
}

static void stream_copy(struct path_stream to, struct path_stream from, int count,
                        enum cudaMemcpyKind kind)
{
    size_t n = (size_t)count;
    CUDA_CHECK(cudaMemcpy(to.origin, from.origin, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.direction, from.direction, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.attenuation, from.attenuation, n * sizeof(struct spec_vec3), kind));
    CUDA_CHECK(cudaMemcpy(to.pixel, from.pixel, n * sizeof(unsigned), kind));
    CUDA_CHECK(cudaMemcpy(to.frame, from.frame, n * sizeof(unsigned), kind));
    CUDA_CHECK(cudaMemcpy(to.segment, from.segment, n * sizeof(int), kind));
}
