/*
 * Stage 05, pinned memory: every host buffer is page-locked (cudaMallocHost, cudaFreeHost).
 *
 * Page-locked memory is mapped and resident from the allocation on, so the page faults that
 * stage 04 moved into the copies happen (once, in the host allocation) before any copy, and the
 * GPU's copy engine reads and writes it directly by DMA instead of through a staging buffer of
 * the driver: faster transfers, paid for by a slower allocation and free.
 *
 * Builds on 04-float3.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "../04-float3/kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
