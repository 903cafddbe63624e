/*
 * Stage p09d, two paths per thread (a side stage): two independent paths in one thread (seed
 * 002, "maximize register usage").
 *
 * In p09 a thread's work is one chain of dependent instructions: each sphere test waits for the
 * constant-cache read and the arithmetic before it, and the warp scheduler hides that latency
 * with other warps only. Here each thread carries two independent paths, each taking its next
 * path from the counter on its own when it ends, and finds both hits in one loop over the
 * spheres: the two rays' tests of a sphere do not depend on each other, so their instructions
 * interleave and one thread hides part of its own latency (instruction-level parallelism). The
 * price: more registers per thread, so fewer threads per SM (lower occupancy), and a thread
 * whose queue has run dry still tests its idle slot's ray against every sphere.
 *
 * Builds on p09-path-regeneration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "../p09-path-regeneration/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p09-path-regeneration/host.cuh"
