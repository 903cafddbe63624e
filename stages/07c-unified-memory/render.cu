/*
 * Stage 07c, unified memory (a side stage): one managed allocation per buffer, no copies.
 *
 * The frame buffer, the spheres, the light and the camera come from cudaMallocManaged: one
 * pointer that the host and the kernel both use, instead of a host buffer, a device buffer and a
 * cudaMemcpy between them. Nothing is copied explicitly: the driver migrates pages on demand, the
 * scene to the GPU when the kernel first touches it, the frame back to the host when the host
 * first reads it. The device-to-host phase is that first read (one byte of every 4 KiB page, as
 * a consumer of the frame would begin).
 *
 * Builds on 07-shared-spheres.
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
