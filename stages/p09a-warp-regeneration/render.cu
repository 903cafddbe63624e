/*
 * Stage p09a, warp regeneration (a side stage): a warp takes 32 new paths at once (seed 002,
 * "regenerationSK (warp)").
 *
 * In p09 each thread takes a new path the moment its own ends, so after a few segments a warp
 * holds paths of pixels far apart, at different depths, and each lane that starts a new path (an
 * atomic, a camera ray) keeps the others of its warp waiting. Here a warp takes new paths only
 * when every one of its lanes has ended its path (a warp vote, __all_sync): then one lane takes
 * 32 path indices with one atomic add, the first is broadcast with __shfl_sync, and lane k
 * starts path first + k. The 32 paths of a warp start together, at neighbouring pixels, and the
 * counter sees one atomic per 32 paths. The price: a lane whose path ended early idles until the
 * longest path of its warp has ended, as in p08, but in a grid that never has to drain.
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
