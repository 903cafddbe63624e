/*
 * Stage 14b, hoisted invariants (a side stage): what every pixel recomputed is computed once.
 *
 * With the spheres binned, the profile shows the work each pixel does whatever it hits, and
 * some of it is the same for many pixels. Each pixel worked out its image-plane x and y with a
 * division each (an IEEE division is a sequence of about ten instructions), though x depends
 * only on the column and y only on the row: a small kernel now writes one x per column and one y
 * per row before the bands, and a pixel reads two floats. A reflection that hits nothing took
 * the background colour over 255, three divisions, in every such pixel: the host now does it
 * once, into the camera. And the far root of a hit, (-b + sqrt(disc)) / a, was computed even
 * when the near root is the answer: it is now computed only when it is needed. The same
 * operations on the same values give the same bits.
 *
 * Kept from earlier stages: each ray tests only the spheres of its tile's or light cell's bin
 * (stage 14; the README of 14-sphere-binning, "Why the image cannot change", says why the bits
 * stay), and the intersection solves the quadratic with half of b (stage 12: the factors 2 and 4
 * it drops are powers of two, which scale a float exactly).
 *
 * Builds on 14-sphere-binning.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "intersect.cuh"
#include "../14-sphere-binning/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "raytrace/the-kernel-to-the-floor/plane.cuh"
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
