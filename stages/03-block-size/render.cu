/*
 * Stage 03, threads per block: 32x32 (1024, the most a block may have) instead of 16x16.
 *
 * The block size decides how many blocks share a multiprocessor, and with the registers per
 * thread, the theoretical occupancy the report shows. Here it is also an option: --block WxH
 * lets a student sweep it without rebuilding. The kernel is stage 02's, unchanged.
 *
 * Builds on 02-static-registers.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../01-base/rt_math.cuh"
#include "../02-static-registers/intersect.cuh"
#include "../02-static-registers/trace.cuh"
#include "../02-static-registers/kernel.cuh"
#include "../01-base/host.cuh"

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
