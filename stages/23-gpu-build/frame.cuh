/* The host side's data: what a frame needs on the GPU, the scene's arrays on the host, and the
 * scene's upload. */

#define BAND_COUNT 16  /* bands of rows, each its own kernel launch and copy */
#define STREAM_COUNT 4 /* band b's kernel goes to stream b % STREAM_COUNT */

/* What a frame needs that outlives it: allocated once, reused by every frame. */
struct frame_resources {
    unsigned char *framebuffer, *device_framebuffer;
    Scene scene; /* device pointers */
    struct build_buffers build;
    int sphere_count;
    float *plane_x, *plane_y; /* per column, per row */
    int resident_blocks;      /* blocks of render_kernel the GPU holds at once */
    cudaStream_t streams[STREAM_COUNT];
    cudaStream_t copy_stream; /* every band's copy, each after its band's kernel */
    cudaEvent_t bands_start, band_rendered[BAND_COUNT];
};

/* The scene's arrays on the host, in pinned memory. */
struct host_scene {
    Sphere *spheres;
    float4 *geometry, *from_camera;
    int sphere_count;
};

/* The scene to the GPU (an interactive renderer would change it between frames); returns the
 * bytes copied. The tree is made there. */
static size_t upload_scene(const struct host_scene *host, const Light *light, const Camera *camera,
                           const Scene *device)
{
    const size_t n = (size_t)host->sphere_count;
    CUDA_CHECK(cudaMemcpy((void *)device->spheres, host->spheres, n * sizeof(Sphere),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->geometry, host->geometry, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)device->from_camera, host->from_camera, n * sizeof(float4),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_light, light, sizeof(Light)));
    CUDA_CHECK(cudaMemcpyToSymbol(constant_camera, camera, sizeof(Camera)));
    return n * (sizeof(Sphere) + 2 * sizeof(float4)) + sizeof(Light) + sizeof(Camera);
}
