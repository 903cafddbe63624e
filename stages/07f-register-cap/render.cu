/*
 * Stage 07f, register cap (a side stage): __launch_bounds__ asks for full occupancy.
 *
 * __launch_bounds__(1024, 2) promises the compiler that a block has at most 1024 threads (stage
 * 07's 32x32) and asks that 2 such blocks fit on a multiprocessor at once: 2048 threads, all a
 * Hopper, A100 or B200 multiprocessor holds, sharing its 65,536 registers, so at most 32 per
 * thread, fewer than stage 07 uses. What does not fit spills to local memory (see the resource
 * report). Where a multiprocessor holds fewer than 2048 threads, one block of 1024 is all that
 * fits anyway, and the stage asks for that (BLOCKS_PER_SM).
 *
 * Builds on 07-shared-spheres.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "kernel.cuh"
#include "../07-shared-spheres/host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
