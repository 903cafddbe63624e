/*
 * Stage 07d, managed memory with prefetching (a side stage): pages moved before use.
 *
 * Stage 07c's managed buffers, with the migrations asked for ahead of time: cudaMemPrefetchAsync
 * moves the scene to the GPU before the kernel and the frame to the host after it, in bulk
 * instead of one page fault at a time, and each phase waits for its prefetch. The host still
 * reads one byte of every 4 KiB page of the frame, now already resident.
 *
 * Builds on 07c-unified-memory.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "../07-shared-spheres/kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
