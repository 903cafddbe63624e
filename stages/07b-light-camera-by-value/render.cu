/*
 * Stage 07b, light and camera by value (a side stage): kernel parameters, not pointers.
 *
 * The study's src8Value: the light and the camera (36 and 24 bytes) travel to the kernel as
 * copies in its parameter list instead of pointers to device memory. Kernel parameters live in a
 * constant bank that every thread reads through the constant cache, so their host allocations,
 * device allocations and copies go away.
 *
 * Builds on 07-shared-spheres.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
