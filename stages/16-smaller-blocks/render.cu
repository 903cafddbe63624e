/*
 * Stage 16, smaller blocks: 32x8 threads per block instead of 32x32, for more warps per SM.
 *
 * With the copies out of its way, the kernel is what the schedulers can issue, and they wait:
 * an IEEE division or square root is a chain of about ten dependent instructions, and a warp
 * waits on each link. Other warps fill those cycles, if the SM holds enough of them. The kernel
 * needs 38 registers per thread (40 as allocated): a block of 1024 threads takes 40,960 of the
 * SM's 65,536 registers, so a second block does not fit and the SM holds 32 warps of its 64, 50%
 * occupancy. A block of 256 threads takes 10,240: six fit, 48 warps, 75%. The block stays 32
 * pixels wide, so a warp is still a row of 32 pixels of one tile, and the tiles, the bins and
 * the bands are unchanged.
 *
 * Kept from earlier stages: each ray tests only the spheres of its tile's or light cell's bin
 * (stage 14; the README of 14-sphere-binning, "Why the image cannot change", says why the bits
 * stay), and the intersection solves the quadratic with half of b (stage 12: the factors 2 and 4
 * it drops are powers of two, which scale a float exactly).
 *
 * Builds on 15-copy-stream.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../14-sphere-binning/intersect.cuh"
#include "../14-sphere-binning/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "../14-sphere-binning/kernel.cuh"
#include "../15-copy-stream/frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../13-steady-state/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
