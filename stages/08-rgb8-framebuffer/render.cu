/*
 * Stage 08, an 8-bit frame buffer: the kernel writes the bytes of the image, not floats.
 *
 * Until now the frame buffer held three floats per pixel (805 MB at 8192x8192), and the host
 * turned them into the 8-bit image. The kernel now applies SPEC.md's output rule itself
 * (truncation toward zero, clamped to 0..255) and stores three bytes per pixel: a quarter of the
 * bytes to allocate as pinned memory, to copy back and to free.
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
