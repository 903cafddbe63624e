/*
 * Stage 11, constant memory: the scene lives in the GPU's constant memory.
 *
 * Every thread of a warp reads the same sphere at the same moment. Stage 07 served that read
 * from shared memory, after each block had copied the spheres there and waited at a barrier.
 * Constant memory is made for exactly this pattern: a small read-only space (64 KiB) with its own
 * cache on each SM that broadcasts one address to a whole warp. The spheres, the light and the
 * camera are copied once into __constant__ variables (cudaMemcpyToSymbol); the kernel loses the
 * per-block copy, the barrier and three pointer parameters, and the host its three device
 * allocations.
 *
 * Builds on 10-overlapped-bands.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "constants.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
