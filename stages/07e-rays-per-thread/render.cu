/*
 * Stage 07e, rays per thread (a side stage): fewer threads, each tracing several pixels.
 *
 * The study tried 4, 9 and 16 rays per thread. Here --rays-per-thread N (default 4) launches a
 * grid of width x ceil(height / N) threads; thread (i, j) traces the pixels of column i in rows
 * j, j + R, j + 2R, ... where R is the number of rows the grid covers, so the 32 threads of a
 * warp still store neighbouring pixels together. The per-pixel work moves unchanged into
 * render_pixel(); the block still fills shared memory and meets at the barrier before any thread
 * leaves.
 *
 * Builds on 07-shared-spheres.
 */
#include "runtime/gpu.h"
#include "runtime/options.h"
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
    4, /* --rays-per-thread: 4 by default */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
