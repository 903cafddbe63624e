/* The path a thread carries from one segment to the next: how it starts from the camera, and how
 * it adds its sample to the pixel's sums. */

/* A path in flight: which sample of which pixel, where it is, what it carries. */
struct path {
    unsigned pixel, frame;
    int segment;
    struct ray ray;
    struct spec_vec3 attenuation;
};

/* Path q: its camera ray. */
__device__ static struct path start_path(unsigned long long q, int width, int height,
                                         struct spec_vec3 camera)
{
    unsigned long long pixels = (unsigned long long)width * (unsigned long long)height;
    struct path path;
    path.pixel = (unsigned)(q % pixels);
    path.frame = (unsigned)(q / pixels);
    path.segment = 0;
    pt_camera_ray(camera, width, height, (int)(path.pixel % (unsigned)width),
                  (int)(path.pixel / (unsigned)width), path.frame, &path.ray.origin,
                  &path.ray.direction);
    path.attenuation = spec_v3(1.0f, 1.0f, 1.0f);
    return path;
}

__device__ static void add_sample(unsigned long long *sums, unsigned pixel, struct spec_vec3 colour)
{
    atomicAdd(&sums[3 * (size_t)pixel + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)pixel + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)pixel + 2], (unsigned long long)pt_fixed(colour.z));
}
