/* The sort every build starts with: the box of the spheres' centres, their Morton codes in it,
 * and CUB's radix sort of the codes; its kernels, then its launches and buffers. */

/* Floats as unsigned integers in the same order (negative floats' bits reversed), so that atomic
 * integer minimum and maximum give float ones. */
__device__ inline unsigned int ordered_bits(float f)
{
    const unsigned int bits = __float_as_uint(f);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

__device__ inline float from_ordered_bits(unsigned int bits)
{
    return __uint_as_float(bits & 0x80000000u ? bits & 0x7fffffffu : ~bits);
}

/* The box of the centres: each block reduces its spheres' centres, then six atomics. bounds[0..2]
 * hold the minimum's ordered bits, bounds[3..5] the maximum's (set to the extremes before). */
__global__ void centre_box_kernel(const float4 *geometry, int n, unsigned int *bounds)
{
    __shared__ unsigned int low[3], high[3];
    if (threadIdx.x < 3) {
        low[threadIdx.x] = 0xffffffffu;
        high[threadIdx.x] = 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 g = __ldg(&geometry[i]);
        atomicMin(&low[0], ordered_bits(g.x));
        atomicMin(&low[1], ordered_bits(g.y));
        atomicMin(&low[2], ordered_bits(g.z));
        atomicMax(&high[0], ordered_bits(g.x));
        atomicMax(&high[1], ordered_bits(g.y));
        atomicMax(&high[2], ordered_bits(g.z));
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        atomicMin(&bounds[threadIdx.x], low[threadIdx.x]);
        atomicMax(&bounds[3 + threadIdx.x], high[threadIdx.x]);
    }
}

/* 21 bits of v (0 .. 2^21 - 1) spread to every third bit of 63. */
__device__ inline unsigned long long spread_bits(unsigned long long v)
{
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* Each sphere's 63-bit Morton code: its centre in the box of the centres, on a 2^21-cell grid
 * per axis. 21 bits, not 10 in 30, because one sphere far from the rest stretches the box: the
 * benchmark's floor, centred 1,000 below the others, would leave them a grid of cells a unit
 * wide, and a tree that cannot tell them apart. */
__global__ void morton_kernel(const float4 *geometry, int n, const unsigned int *bounds,
                              unsigned long long *codes, int *indices)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float4 g = __ldg(&geometry[i]);
    const float centre[3] = {g.x, g.y, g.z};
    unsigned long long code = 0;
    for (int axis = 0; axis < 3; axis++) {
        const float lo = from_ordered_bits(bounds[axis]), hi = from_ordered_bits(bounds[3 + axis]);
        const float extent = hi - lo;
        /* A NaN or a flat axis goes to cell 0: a worse tree, never a wrong one. */
        float cell = extent > 0.0f ? (centre[axis] - lo) / extent * 2097152.0f : 0.0f;
        cell = fminf(fmaxf(cell, 0.0f), 2097151.0f);
        code |= spread_bits((unsigned long long)cell) << (2 - axis);
    }
    codes[i] = code;
    indices[i] = i;
}

/* The sort's launches on the current GPU's default stream (the centres' box from the extremes, the
 * codes, CUB's radix sort of them, which carries the spheres' indices into scene->order), and its
 * buffers: the box, the codes and indices before and after the sort, and CUB's scratch, asked for
 * last. Each takes the scene's device arrays and the build's buffers it works on, not a frame:
 * a frame over several GPUs holds one of each a GPU. */
static void sort_spheres(const Scene *scene, const struct build_buffers *b, int n)
{
    const int threads = 256;
    const unsigned int extremes[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0u, 0u, 0u};
    CUDA_CHECK(cudaMemcpyAsync(b->bounds, extremes, sizeof extremes, cudaMemcpyHostToDevice, 0));
    centre_box_kernel<<<min((n + threads - 1) / threads, 1024), threads>>>(scene->geometry, n,
                                                                          b->bounds);
    CUDA_CHECK_LAUNCH("centre_box_kernel");
    morton_kernel<<<(n + threads - 1) / threads, threads>>>(scene->geometry, n, b->bounds,
                                                           b->codes, b->indices);
    CUDA_CHECK_LAUNCH("morton_kernel");
    size_t scratch_bytes = b->sort_scratch_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b->sort_scratch, scratch_bytes, b->codes,
                                               b->sorted_codes, b->indices, (int *)scene->order,
                                               n, 0, 63));
    CUDA_CHECK_LAUNCH("cub::DeviceRadixSort::SortPairs");
}

static void allocate_sort(struct build_buffers *b, size_t n)
{
    CUDA_CHECK(cudaMalloc((void **)&b->bounds, 6 * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc((void **)&b->codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->sorted_codes, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc((void **)&b->indices, n * sizeof(int)));
}

static void allocate_sort_scratch(struct build_buffers *b, const Scene *scene, int n)
{
    b->sort_scratch = NULL;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, b->sort_scratch_bytes, b->codes, b->sorted_codes,
                                               b->indices, (int *)scene->order,
                                               n, 0, 63));
    CUDA_CHECK(cudaMalloc(&b->sort_scratch, b->sort_scratch_bytes));
}

static void free_sort(const struct build_buffers *b)
{
    CUDA_CHECK(cudaFree(b->bounds));
    CUDA_CHECK(cudaFree(b->codes));
    CUDA_CHECK(cudaFree(b->sorted_codes));
    CUDA_CHECK(cudaFree(b->indices));
    CUDA_CHECK(cudaFree(b->sort_scratch));
}
