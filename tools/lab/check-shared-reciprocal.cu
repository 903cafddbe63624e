/*
 * Checks stage 20's normalize3 arithmetic on a GPU: a quotient from a shared reciprocal (the
 * steps of the GPU's own IEEE division fast path, with the reciprocal refined once) against
 * __fdiv_rn, for every significand of a at three exponents and every STEP-th significand of b
 * in [1, 2). Exponents shift out of both (the range stage 20 allows keeps every step away from
 * overflow and underflow), so these cover that range. Prints one line; exit 0 when none differ,
 * 1 when some do or CUDA fails, 2 on a bad STEP or without a GPU.
 *
 *   make build/check-shared-reciprocal          (part of make tools)
 *   build/check-shared-reciprocal [STEP]     (default 16: 1.3e13 quotients, about 8 s on an H100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_check.h"
#include "runtime/gpu.h"

__device__ inline float quotient_refined(float a, float b, float y)
{
    const float q = fmaf(a, y, 0.0f);
    return fmaf(y, fmaf(q, -b, a), q);
}

__global__ void check(int b_step, unsigned long long *differing, unsigned int *example)
{
    const unsigned int b_bits = 0x3f800000u + (unsigned int)blockIdx.x * (unsigned int)b_step;
    const float b = __uint_as_float(b_bits);
    float y0;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(b));
    const float y = fmaf(y0, fmaf(y0, -b, 1.0f), y0);
    unsigned int local = 0;
    for (unsigned int m = threadIdx.x; m < (1u << 23); m += blockDim.x) {
        const float as[3] = {__uint_as_float(0x3f800000u | m), __uint_as_float(0x3f000000u | m),
                             -__uint_as_float(0x3d800000u | m)};
        for (int k = 0; k < 3; k++) {
            if (quotient_refined(as[k], b, y) != __fdiv_rn(as[k], b)) {
                local++;
                example[0] = __float_as_uint(as[k]);
                example[1] = b_bits;
            }
        }
    }
    if (local) {
        atomicAdd(differing, (unsigned long long)local);
    }
}

int main(int argc, char **argv)
{
    cuda_check_program = "check-shared-reciprocal";
    const int b_step = argc > 1 ? atoi(argv[1]) : 16;
    if (b_step < 1 || b_step > (1 << 23)) {
        fprintf(stderr, "check-shared-reciprocal: STEP must be 1 to 8388608, not '%s'\n", argv[1]);
        return 2;
    }
    struct report report;
    memset(&report, 0, sizeof report);
    char error[256];
    if (gpu_open(0, &report, error, sizeof error) != GPU_OK) {
        fprintf(stderr, "check-shared-reciprocal: error: %s\n", error);
        return 2;
    }
    const int b_count = ((1 << 23) + b_step - 1) / b_step;
    unsigned long long *differing;
    unsigned int *example;
    CUDA_CHECK(cudaMallocManaged((void **)&differing, sizeof *differing, cudaMemAttachGlobal));
    CUDA_CHECK(cudaMallocManaged((void **)&example, 2 * sizeof *example, cudaMemAttachGlobal));
    *differing = 0;
    example[0] = example[1] = 0;
    check<<<b_count, 1024>>>(b_step, differing, example);
    CUDA_CHECK_LAUNCH("check");
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("check-shared-reciprocal: %d values of b (every %d-th significand), 3 x 2^23 of a each: "
           "%.3g quotients, %llu differ from __fdiv_rn",
           b_count, b_step, 3.0 * b_count * (double)(1 << 23), *differing);
    if (*differing) {
        float a, b;
        memcpy(&a, &example[0], sizeof a);
        memcpy(&b, &example[1], sizeof b);
        printf(" (e.g. a = %a, b = %a)", a, b);
    }
    printf("\n");
    return *differing != 0;
}
