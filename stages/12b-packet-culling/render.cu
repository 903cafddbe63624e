/*
 * Stage 12b, packet culling (a side stage): each block first finds the spheres its rays can
 * possibly meet, and its rays test only those.
 *
 * Every ray so far tested every sphere, though a block of neighbouring pixels sees only a few:
 * its primary rays leave the camera inside a narrow pyramid, and the shadow and reflection rays
 * of its hit points start close together and point in nearly the same direction. Each block now
 * bounds its rays of each kind by a packet (origins inside a ball, directions inside a cone
 * around an axis), built from the block's pixel corners for primary rays and, for secondary
 * rays, by reductions over the block's hit points (warp reductions, then shared-memory atomics).
 * One warp then lists, in sphere order, the spheres that can meet some ray of the packet, and
 * every thread loops over that short list in shared memory. The test errs on the side of keeping
 * a sphere (margins far above float error, and NaN keeps everything), and the list keeps the
 * spheres' order, so every ray finds the hit it found before: work that cannot change the pixel
 * is skipped, and the image is stage 12's. The shadow ray of a reflection's hit point is not in
 * a packet (those points are scattered) and still tests every sphere.
 *
 * Kept from stage 12: the intersection solves the quadratic with half of b, and the factors 2
 * and 4 it drops are powers of two, which scale a float exactly.
 *
 * Builds on 12-lean-intersection.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "raytrace/rt_stage.h"

#define CULL_ANGLE_MARGIN 2e-3f    /* radians added to a packet's cone: float error is far below */
#define CULL_DISTANCE_MARGIN 1e-3f /* relative margin on distances */
/* The widest block whose four corner rays bound its primary rays (radians, under a right angle). */
#define WIDEST_CORNER_SPREAD 1.5f
#define PI_RADIANS 3.14159274f

#include "raytrace/rt_math.cuh"
#include "../12-lean-intersection/constants.cuh"
#include "../12-lean-intersection/intersect.cuh"
#include "trace.cuh"
#include "packets.cuh"
#include "kernel.cuh"
#include "../12-lean-intersection/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
