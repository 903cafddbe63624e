/*
 * Stage 14, sphere binning: each ray tests only the spheres it can possibly meet.
 *
 * Every ray so far tests every sphere, though a ray meets one or two. Before the bands, a small
 * kernel bins the spheres twice. Per tile of 32x32 pixels: which spheres can a primary ray of the
 * tile meet (the tile's rays fill a narrow cone from the camera)? Per cell of a "light buffer"
 * (a cube around the light, each face cut into 64x64 cells): which spheres can a line through the
 * light, in one of the cell's directions, meet? Every shadow ray runs through the light (up to a
 * hair), so its cell names all its possible blockers. The answers are bit masks, one bit per
 * sphere; a ray loops over the set bits, in sphere order, and a warp over the union of its
 * lanes' masks, so its lanes stay in step and read the same sphere at once. The bins err towards
 * keeping a sphere, by margins far above float error, and a skipped sphere is one the ray could
 * not hit: the closest hit and the first blocker are the ones found before, and the image keeps
 * its bits (README.md, "Why the image cannot change"; SPEC.md section 2, "What a stage may
 * change"). One more skip, exact too: a sphere wholly behind the ray's origin (k > 0 and
 * d.oc > 0) needs no square root.
 *
 * Kept from stage 12: the intersection solves the quadratic with half of b, and the factors 2
 * and 4 it drops are powers of two, which scale a float exactly.
 *
 * Builds on 13-steady-state.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "constants.cuh"
#include "cones.cuh"
#include "intersect.cuh"
#include "closest.cuh"
#include "light_cell.cuh"
#include "trace.cuh"
#include "bins.cuh"
#include "kernel.cuh"
#include "frame.cuh"
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
