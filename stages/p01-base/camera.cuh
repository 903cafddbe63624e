/* The camera kernel: each pixel's camera ray for the frame, and its sample reset. */

__global__ void camera_kernel(struct ray *rays, struct sample *samples, struct spec_vec3 camera,
                              int width, int height, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height)
        return;
    struct ray *ray = &rays[p];
    pt_camera_ray(camera, width, height, p % width, p / width, frame, &ray->origin,
                  &ray->direction);
    ray->done = 0;
    struct sample *sample = &samples[p];
    sample->colour = spec_v3(0.0f, 0.0f, 0.0f);
    sample->attenuation = spec_v3(1.0f, 1.0f, 1.0f);
}
