/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* As many blocks per SM as the SM runs threads: all of them, which caps the registers at
 * 65,536 / threads per SM. 2,048 threads on compute capability 8.0, 9.0 and 10.x (32 registers);
 * 1,024 on 7.5 (the T4: 64 registers, no cap below p09's 48); 1,536 on the others (8.6 to
 * 8.9, 11.0, 12.x: 40 registers, as allocated). ptxas refuses more blocks than an SM holds. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SM_THREADS_MAX 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || \
                                 __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
#define SM_THREADS_MAX 2048
#else
#define SM_THREADS_MAX 1536
#endif
#define BLOCKS_PER_SM_MIN (SM_THREADS_MAX / BLOCK_THREADS)

/* Every thread loops: a thread without a path takes the next one, then every thread extends
 * its path by one segment. A thread leaves when the counter has passed the last path. */
__global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM_MIN)
    persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                      struct spec_vec3 camera, struct spec_vec3 sky, int sphere_count,
                      int width, int height, int samples, int max_depth)
{
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    for (;;) {
        if (!active) {
            unsigned long long q = atomicAdd(next_path, 1ULL);
            if (q >= total)
                return;
            path = start_path(q, width, height, camera);
            active = 1;
        }
        active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}
