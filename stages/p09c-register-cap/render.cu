/*
 * Stage p09c, register cap (a side stage): __launch_bounds__ for full occupancy (seed 002,
 * "bounding register usage").
 *
 * p09's kernel needs 48 registers a thread, so an SM of 65,536 registers holds ten blocks of
 * 128 threads, 1,280 of the 2,048 threads a Hopper or Ampere SM can run (62.5%).
 * __launch_bounds__(128, 16) tells the compiler that sixteen blocks must fit: it keeps to
 * 65,536 / (16 x 128) = 32 registers and puts what does not fit in local memory (spills, in
 * the resource report). Where an SM runs fewer threads, BLOCKS_PER_SM_MIN asks for as many
 * blocks as it holds. More warps hide more latency, if the spills' own latency does not eat the
 * gain; seed 002 lost by it. The grid follows by itself: resident_blocks() asks the occupancy
 * API, which sees the capped kernel.
 *
 * Builds on p09-path-regeneration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p09-path-regeneration/trace.cuh"
#include "kernel.cuh"
#include "../p09-path-regeneration/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p09-path-regeneration/host.cuh"
