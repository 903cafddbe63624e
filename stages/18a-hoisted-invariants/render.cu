/*
 * Stage 18a, hoisted invariants (a side stage): what every pixel recomputed is computed once.
 *
 * With the spheres binned, the profile shows the work each pixel does whatever it hits, and
 * some of it is the same for many pixels. Each pixel worked out its image-plane x and y with a
 * division each (an IEEE division is a sequence of about ten instructions), though x depends
 * only on the column and y only on the row: a small kernel now writes one x per column and one y
 * per row before the bands, and a pixel reads two floats. A reflection that hits nothing took
 * the background colour over 255, three divisions, in every such pixel: the host now does it
 * once, into the camera. And the far root of a hit, (-b + sqrt(disc)) / a, was computed even
 * when the near root is the answer: it is now computed only when it is needed. The same
 * operations on the same values give the same bits. Side stage 14b made this change on stage
 * 14.
 *
 * Kept from earlier stages: each ray tests only the spheres of a bin, its tile's or light
 * cell's (stage 14) or its warp's reflection packet (stage 17), which keeps the bits (the README
 * of 14-sphere-binning, "Why the image cannot change"); the intersection solves the quadratic
 * with half of b (stage 12: the factors 2 and 4 it drops are powers of two, which scale a float
 * exactly). Stage 18's budget, __launch_bounds__(256, 6), holds the kernel to
 * 65,536 / (6 x 256) = 42 registers a thread, 40 as allocated, and spills the rest.
 *
 * Builds on 18-register-budget.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "intersect.cuh"
#include "raytrace/the-kernel-to-the-floor/packet.cuh"
#include "raytrace/the-kernel-to-the-floor/packet_bits.cuh"
#include "raytrace/the-kernel-to-the-floor/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "raytrace/the-kernel-to-the-floor/plane.cuh"
#include "kernel.cuh"
#include "frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../13-steady-state/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
