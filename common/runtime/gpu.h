/* The GPU as the report sees it: choosing it, describing it, checking what fits on it. */
#ifndef GPU_H
#define GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "runtime/report.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gpu_status { GPU_OK = 0, GPU_NONE = 1, GPU_BAD_INDEX = 2 };

/* Selects the device and creates its context, timed into report->context_creation_us; fills the
 * report's GPU name, UUID and summary. On failure, a one-line message in error. */
enum gpu_status gpu_open(int device, struct report *report, char *error, size_t error_size);

/* For a stage that renders on several GPUs (--gpus): 0 when the GPUs device .. device + gpus - 1
 * exist (gpus 0, --gpus not given: every GPU from device on, there once gpu_open succeeded), else
 * -1 with a one-line message. */
int gpu_check_count(int device, int gpus, char *error, size_t error_size);

/* How many GPUs this process sees (CUDA_VISIBLE_DEVICES applied); 0 where none is found. */
int gpu_visible_count(void);

/* 0 when bytes fit in the device's free memory, else -1 naming the bytes needed and free. */
int gpu_check_memory(size_t bytes, const char *what, char *error, size_t error_size);

/* Registers, stack frame and theoretical occupancy of a kernel at a block size, for the report. */
void gpu_kernel_resources(struct report *report, const void *kernel, int block_threads,
                          size_t dynamic_shared_bytes);

/* Times a kernel both ways: the CPU clock around launch-and-wait (the study's "CUDA kernel"
 * phase) and CUDA events recorded on the GPU around it (report->kernel_event_us). */
struct kernel_timer {
    cudaEvent_t start, stop;
    double cpu_start_us;
    int stop_recorded; /* kernel_timer_launches_done was called */
};
void kernel_timer_start(struct kernel_timer *timer);
/* Where the timed span holds other steps between launches (the path-tracing track's copies
 * and host additions each frame): the time since the start or the last part, as a part of the
 * kernel phase named `part`; the CPU clock goes on from there. */
void kernel_timer_part(struct kernel_timer *timer, struct report *report, const char *part);
/* Where the host works on while the kernels run (the path-tracing track's p12): the GPU's end
 * event goes into the stream now, after the last launch, so that kernel_events is the GPU's work
 * alone and not also the host's; kernel_timer_stop then only waits for it. */
void kernel_timer_launches_done(struct kernel_timer *timer);
/* Waits for the kernel to finish, then records both times (the CPU clock's since the start or
 * the last part; the events' over the whole span). */
void kernel_timer_stop(struct kernel_timer *timer, struct report *report);

/* "pinned" for page-locked host memory (cudaMallocHost or cudaHostRegister), "managed" for
 * cudaMallocManaged, "pageable" otherwise (asks the CUDA runtime). */
const char *gpu_host_memory_kind(const void *pointer);

#ifdef __cplusplus
}
#endif

#endif
