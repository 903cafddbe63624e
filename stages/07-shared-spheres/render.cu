/*
 * Stage 07, shared spheres: each block copies the spheres into shared memory once, then traces.
 *
 * Every ray of every thread reads every sphere, several times per pixel. The threads of a block
 * now copy the spheres from global memory into the block's shared memory together (thread k of
 * n copies spheres k, k + n, k + 2n, ...), wait for each other at a barrier, and trace against
 * the on-chip copy. Its size is set at launch (dynamic shared memory), which limits a scene to
 * the 48 KiB a block gets without opting in for more.
 *
 * Builds on 06-no-framebuffer-upload.
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
