/* The build's first passes: the box of the spheres' centres, then each sphere's Morton code in
 * it, which a radix sort puts in order. */

/* Floats as unsigned integers in the same order (negative floats' bits reversed), so that atomic
 * integer minimum and maximum give float ones. */
__device__ static unsigned ordered_bits(float f)
{
    unsigned bits = __float_as_uint(f);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

__device__ static float from_ordered_bits(unsigned bits)
{
    return __uint_as_float(bits & 0x80000000u ? bits & 0x7fffffffu : ~bits);
}

/* The box of the centres: each block reduces its spheres' centres, then six atomics. bounds[0..2]
 * hold the minimum's ordered bits, bounds[3..5] the maximum's (set to the extremes before). */
__global__ void centre_box_kernel(const struct pt_sphere *spheres, int n, unsigned *bounds)
{
    __shared__ unsigned low[3], high[3];
    if (threadIdx.x < 3) {
        low[threadIdx.x] = 0xffffffffu;
        high[threadIdx.x] = 0u;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        struct spec_vec3 c = spheres[i].centre;
        atomicMin(&low[0], ordered_bits(c.x));
        atomicMin(&low[1], ordered_bits(c.y));
        atomicMin(&low[2], ordered_bits(c.z));
        atomicMax(&high[0], ordered_bits(c.x));
        atomicMax(&high[1], ordered_bits(c.y));
        atomicMax(&high[2], ordered_bits(c.z));
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        atomicMin(&bounds[threadIdx.x], low[threadIdx.x]);
        atomicMax(&bounds[3 + threadIdx.x], high[threadIdx.x]);
    }
}

/* 21 bits of v (0 .. 2^21 - 1) spread to every third bit of 63. */
__device__ static unsigned long long spread_bits(unsigned long long v)
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
 * per axis (21 bits, not 10: the floor, centred 1,000 below the rest, stretches the box). */
__global__ void morton_kernel(const struct pt_sphere *spheres, int n, const unsigned *bounds,
                              unsigned long long *codes, int *indices)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    struct spec_vec3 c = spheres[i].centre;
    float centre[3] = {c.x, c.y, c.z};
    unsigned long long code = 0;
    for (int axis = 0; axis < 3; ++axis) {
        float lo = from_ordered_bits(bounds[axis]), hi = from_ordered_bits(bounds[3 + axis]);
        float extent = hi - lo;
        /* A NaN or a flat axis goes to cell 0: a worse tree, never a wrong one. */
        float cell = extent > 0.0f ? (centre[axis] - lo) / extent * 2097152.0f : 0.0f;
        cell = fminf(fmaxf(cell, 0.0f), 2097151.0f);
        code |= spread_bits((unsigned long long)cell) << (2 - axis);
    }
    codes[i] = code;
    indices[i] = i;
}
