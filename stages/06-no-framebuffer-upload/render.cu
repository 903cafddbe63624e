/*
 * Stage 06, no frame buffer upload: the frame buffer is no longer copied to the device.
 *
 * The kernel writes every pixel of the image and never reads one, so the frame buffer the host
 * sent up before each launch (empty, at that) was the biggest transfer of the program for
 * nothing; now only the spheres, the light and the camera go up (592 bytes for the benchmark).
 *
 * Builds on 05-pinned-memory.
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
