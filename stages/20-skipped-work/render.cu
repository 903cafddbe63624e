/*
 * Stage 20, skipped work: what cannot change a pixel's bits is not computed.
 *
 * Since stage 19 the schedulers issue in nearly every cycle they can: the kernel is as fast as
 * its instruction count. This stage takes out instructions whose results the image does not
 * need, each with the reason the bits cannot change (README.md gives each in full):
 * - The specular term. A cosine below a cutoff, raised to the 32nd power and scaled, adds less
 *   than half a unit in the last place to the lighting (at least the ambient term): the sum
 *   rounds back to the same float. The host works out the cutoff from the scene's ambient and
 *   specular coefficients (SPEC.md's numbers: 0.52); a cheap test on vectors that are not yet
 *   normalised decides, with a margin far above their rounding, and only the pixels that pass
 *   normalise the view vector and the reflection to compute the term.
 * - Spheres a reflection ray leaves. A ray that starts outside a sphere and points away from its
 *   centre cannot hit it (has_intersection's first test), as the ground is for every ground
 *   pixel's reflection. The same test, with a margin, on the direction before it is normalised
 *   skips them; the direction is normalised only if a sphere is left to test.
 * - Three quotients by one length. An IEEE division is the hardware's approximate reciprocal, a
 *   Newton step that refines it, two fused multiply-adds for the quotient and its correction,
 *   and a range check (FCHK) that sends unusual operands to a slow path. normalize3 divides three
 *   components by one length: it refines the reciprocal once and keeps the quotient steps. Where
 *   the range check would pass (lengths and quotients far from overflow and underflow; the code
 *   checks a narrower range), those steps give the correctly rounded quotient, the same bits
 *   as the division; elsewhere normalize3 divides.
 * - Per pixel, what is the same for a whole column, row or frame: the image-plane x and y (two
 *   divisions) come from tables a small kernel writes, the background over 255 from the host.
 * - Cheaper forms of the same result: the far root only when the near one is not positive, the
 *   channel clamp as two min/max, the tile and light-cell indices in 32-bit integers (they fit),
 *   one approximate quotient for the light cell, and the packet's square roots from rsqrtf with
 *   a margin (a packet's bound only needs to be wide enough).
 * The registers the new code needs come back from a budget of five blocks an SM (48 registers)
 * instead of six (40 and more spills).
 *
 * Kept from earlier stages: stage 14's bins and stage 17's packets (14-sphere-binning's README,
 * "Why the image cannot change"), stage 12's half of b (powers of two scale a float exactly).
 *
 * Builds on 19-global-sphere-loads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "intersect.cuh"
#include "packet.cuh"
#include "../19-global-sphere-loads/packet_bits.cuh"
#include "closest.cuh"
#include "light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "raytrace/the-kernel-to-the-floor/plane.cuh"
#include "kernel.cuh"
#include "frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../19-global-sphere-loads/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
