/* Every CUDA call and kernel launch goes through these: a failure names the call, the file and
 * the line, and ends the program with status 1. Usable from C (gcc) and CUDA (nvcc). */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name error messages start with (the stage's name); set by main. */
extern const char *cuda_check_program;

void cuda_check_failed(cudaError_t result, const char *call, const char *file, int line);

#define CUDA_CHECK(call)                                                                          \
    do {                                                                                          \
        cudaError_t cuda_check_result_ = (call);                                                  \
        if (cuda_check_result_ != cudaSuccess)                                                    \
            cuda_check_failed(cuda_check_result_, #call, __FILE__, __LINE__);                     \
    } while (0)

/* After a <<<...>>> launch: catches a bad configuration at once; errors inside the kernel
 * surface at the next synchronising call, which is checked too. */
#define CUDA_CHECK_LAUNCH(kernel_name)                                                            \
    do {                                                                                          \
        cudaError_t cuda_check_result_ = cudaGetLastError();                                      \
        if (cuda_check_result_ != cudaSuccess)                                                    \
            cuda_check_failed(cuda_check_result_, "launch of " kernel_name, __FILE__, __LINE__);  \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
