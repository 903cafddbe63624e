/*
 * Stage 14a, warp packets (a side stage): a warp's reflection rays bounded together, as they run.
 *
 * Stage 14 bins the primary and shadow rays before the frame, from what is known then: where the
 * camera and the light are. A reflection ray starts where a primary ray hit, so no bin can be
 * made for it in advance; it still tests every sphere. This stage bounds the reflection rays of
 * each warp when they exist: the lanes' origins within a ball around the first lane's origin,
 * their directions within a cone around the first lane's direction (two warp-wide maxima,
 * __reduce_max_sync). Then the lanes share the work of asking which spheres the packet can meet,
 * a few spheres each, and OR their answers (__reduce_or_sync): every lane of the warp gets the
 * same bin, with no shared memory and no barrier. As in stage 14 the bin errs towards keeping a
 * sphere, a ray skips only spheres it could not hit, and the image keeps its bits (the README of
 * 14-sphere-binning, "Why the image cannot change").
 *
 * Kept from stage 12: the intersection solves the quadratic with half of b, and the factors 2
 * and 4 it drops are powers of two, which scale a float exactly.
 *
 * Builds on 14-sphere-binning.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../14-sphere-binning/intersect.cuh"
#include "raytrace/the-kernel-to-the-floor/packet.cuh"
#include "raytrace/the-kernel-to-the-floor/packet_bits.cuh"
#include "raytrace/the-kernel-to-the-floor/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "../14-sphere-binning/kernel.cuh"
#include "../14-sphere-binning/frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../13-steady-state/bands.cuh"
#include "../13-steady-state/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
