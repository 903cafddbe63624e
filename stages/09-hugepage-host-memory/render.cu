/*
 * Stage 09, host memory without cudaMallocHost's cost: 2 MiB pages, touched by every core, then
 * registered with CUDA.
 *
 * cudaMallocHost allocates, zeroes and pins the frame buffer page by page (4 KiB pages) on one CPU
 * thread, and cudaFreeHost undoes it the same way: most of stage 08's time. Here the frame buffer
 * is mapped by the stage itself (common/runtime/host_pages.c): anonymous memory advised to use 2
 * MiB pages (512 times fewer pages to fault, pin and map), its first touch spread over every CPU
 * core, then cudaHostRegister pins it so the copy still runs as DMA from page-locked memory. Each
 * step is timed as a part of its phase.
 *
 * Builds on 08-rgb8-framebuffer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "../08-rgb8-framebuffer/kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
