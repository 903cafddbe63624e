/*
 * Stage 21, persistent rows: a band's blocks stay on the GPU and walk down its rows.
 *
 * With the work per pixel cut down, what a block costs besides its pixels shows: a band of
 * 8192 x 512 pixels was 16,384 blocks of 256 threads, about 25 times what the GPU holds at once,
 * and each block starts (its registers set up, its indices read), runs a short life (the sky
 * rows: a background colour), and ends, while the SM waits for the next. Now a band launches
 * about one wave of blocks (as many as the GPU holds, from the occupancy calculator, rounded up
 * to whole rows of blocks), and each block renders a row of blocks, then the row gridDim.y rows
 * further down, until the band ends: the same pixels, in another order, with the same
 * arithmetic. The three small kernels before the bands (the two bins and the image-plane tables)
 * become one launch, setup_kernel, whose blocks take the three jobs: each alone leaves most of
 * the GPU idle.
 *
 * Kept from earlier stages: stage 14's bins and stage 17's packets (14-sphere-binning's README,
 * "Why the image cannot change"), stage 12's half of b (powers of two scale a float exactly).
 * And stage 20's skips, two of which the code refers to here: the specular term is computed
 * only where its cosine passes a cutoff the host derives from the scene (below it the term is
 * under half an ulp of the lighting, so the sum rounds back to the same float), and normalize3
 * refines one reciprocal for its three quotients only where the operands lie in a range the
 * division's fast path covers, where the fast path's own steps give the correctly rounded
 * quotient (the README of 20-skipped-work).
 *
 * Builds on 20-skipped-work.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../20-skipped-work/packet.cuh"
#include "../19-global-sphere-loads/packet_bits.cuh"
#include "../20-skipped-work/closest.cuh"
#include "../20-skipped-work/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "bins.cuh"
#include "plane.cuh"
#include "setup.cuh"
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
