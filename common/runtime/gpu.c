#include "runtime/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_check.h"

const char *cuda_check_program = "raytracer";

void cuda_check_failed(cudaError_t result, const char *call, const char *file, int line)
{
    const char *slash = strrchr(file, '/');
    fprintf(stderr, "%s: error: CUDA call %s failed at %s:%d: %s (%s)\n", cuda_check_program, call,
            slash ? slash + 1 : file, line, cudaGetErrorString(result), cudaGetErrorName(result));
    exit(1);
}

void *host_alloc_or_exit(size_t bytes, const char *what)
{
    void *memory = malloc(bytes);
    if (!memory) {
        fprintf(stderr, "%s: error: out of host memory: %s needs %zu bytes\n", cuda_check_program,
                what, bytes);
        exit(1);
    }
    return memory;
}

static void format_uuid(const struct cudaDeviceProp *properties, char *out, size_t size)
{
    const unsigned char *b = (const unsigned char *)properties->uuid.bytes;
    snprintf(out, size,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

/* The name goes into CSV: no commas. */
static void copy_name(const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s", name);
    for (char *c = out; *c; ++c)
        if (*c == ',' || *c == '\n')
            *c = ' ';
}

/* CUDA answers "driver version is insufficient" both where no NVIDIA driver is installed (a
 * machine without a GPU) and where the driver is older than the runtime: say which. */
static void insufficient_driver_reason(char *why, size_t size)
{
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
        snprintf(why, size, ": no NVIDIA driver is installed");
        return;
    }
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
        return;
    snprintf(why, size, ": the driver supports CUDA %d.%d, this program was built with CUDA %d.%d",
             driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

enum gpu_status gpu_open(int device, struct report *report, char *error, size_t error_size)
{
    int count = 0;
    cudaError_t result = cudaGetDeviceCount(&count);
    if (result != cudaSuccess || count == 0) {
        char why[128] = "";
        if (result == cudaErrorInsufficientDriver)
            insufficient_driver_reason(why, sizeof why);
        snprintf(error, error_size, "no CUDA-capable GPU found (cudaGetDeviceCount: %s%s)",
                 result == cudaSuccess ? "0 devices" : cudaGetErrorString(result), why);
        return GPU_NONE;
    }
    if (device >= count) {
        snprintf(error, error_size, "--device %d is out of range: this machine has %d GPU%s (0 to %d)",
                 device, count, count == 1 ? "" : "s", count - 1);
        return GPU_BAD_INDEX;
    }

    double start = timer_now_us();
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaFree(0)); /* the first runtime call that needs a context creates it */
    report->context_creation_us = timer_now_us() - start;

    struct cudaDeviceProp properties;
    CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    copy_name(properties.name, report->gpu_name, sizeof report->gpu_name);
    format_uuid(&properties, report->gpu_uuid, sizeof report->gpu_uuid);
    snprintf(report->gpu_summary, sizeof report->gpu_summary,
             "%s (compute capability %d.%d, %d SMs, %.1f GiB, %zu KiB shared memory per block, "
             "CUDA driver %d.%d, runtime %d.%d)",
             report->gpu_name, properties.major, properties.minor, properties.multiProcessorCount,
             (double)properties.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
             properties.sharedMemPerBlock / 1024, driver / 1000, driver % 1000 / 10,
             runtime / 1000, runtime % 1000 / 10);
    return GPU_OK;
}

int gpu_visible_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

int gpu_check_count(int device, int gpus, char *error, size_t error_size)
{
    if (gpus == 0)
        return 0;
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device + gpus <= count)
        return 0;
    snprintf(error, error_size,
             "--gpus %d is out of range: this machine has %d GPU%s (0 to %d), %d of them from "
             "--device %d on",
             gpus, count, count == 1 ? "" : "s", count - 1, count - device, device);
    return -1;
}

int gpu_check_memory(size_t bytes, const char *what, char *error, size_t error_size)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes) {
        snprintf(error, error_size,
                 "%s needs %zu bytes of device memory, but only %zu of %zu bytes are free", what,
                 bytes, free_bytes, total_bytes);
        return -1;
    }
    return 0;
}

void gpu_kernel_resources(struct report *report, const void *kernel, int block_threads,
                          size_t dynamic_shared_bytes)
{
    struct cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int device, blocks_per_sm = 0, threads_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block_threads,
                                                             dynamic_shared_bytes));
    report->registers = attributes.numRegs;
    report->stack_frame_bytes = (int)attributes.localSizeBytes;
    report->shared_memory_bytes = (long long)(attributes.sharedSizeBytes + dynamic_shared_bytes);
    report->occupancy_percent = 100.0 * blocks_per_sm * block_threads / threads_per_sm;
}

void kernel_timer_start(struct kernel_timer *timer)
{
    CUDA_CHECK(cudaEventCreate(&timer->start));
    CUDA_CHECK(cudaEventCreate(&timer->stop));
    timer->stop_recorded = 0;
    timer->cpu_start_us = timer_now_us();
    CUDA_CHECK(cudaEventRecord(timer->start, 0));
}

void kernel_timer_launches_done(struct kernel_timer *timer)
{
    CUDA_CHECK(cudaEventRecord(timer->stop, 0));
    timer->stop_recorded = 1;
}

void kernel_timer_part(struct kernel_timer *timer, struct report *report, const char *part)
{
    timer->cpu_start_us = report_part_since(report, PHASE_KERNEL, part, timer->cpu_start_us);
}

void kernel_timer_stop(struct kernel_timer *timer, struct report *report)
{
    if (!timer->stop_recorded)
        CUDA_CHECK(cudaEventRecord(timer->stop, 0));
    CUDA_CHECK(cudaEventSynchronize(timer->stop));
    report_phase_since(report, PHASE_KERNEL, timer->cpu_start_us);
    float milliseconds = 0;
    CUDA_CHECK(cudaEventElapsedTime(&milliseconds, timer->start, timer->stop));
    report->kernel_event_us = milliseconds * 1000.0;
    CUDA_CHECK(cudaEventDestroy(timer->start));
    CUDA_CHECK(cudaEventDestroy(timer->stop));
}

const char *gpu_host_memory_kind(const void *pointer)
{
    struct cudaPointerAttributes attributes;
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
        (void)cudaGetLastError(); /* older runtimes answer an error for pageable memory */
        return "pageable";
    }
    if (attributes.type == cudaMemoryTypeManaged)
        return "managed";
    return attributes.type == cudaMemoryTypeHost ? "pinned" : "pageable";
}
