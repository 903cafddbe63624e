/*
 * Stage p09e, block compaction (a side stage): tiled block compaction (seed 002,
 * "StreamingSK").
 *
 * In p09 a thread whose path has ended takes the next one at once, on its own: a warp soon holds
 * paths of every depth side by side, new primary rays among old bounces, and every new path
 * costs an atomic add. Here each block keeps BLOCK_THREADS path slots and, after every segment,
 * compacts its live paths to the front of them: a block-wide exclusive scan of the "still going"
 * flags, written by hand (a scan in each warp with shuffles, the warps' totals through shared
 * memory, a scan of those), gives each live path its new slot; its state moves there through
 * shared memory; and the free slots at the end take new paths from the global counter, one
 * atomic add per block for all of them. Warps stay full of live paths and the new paths start
 * together. The price: three barriers a segment, and at the first the block waits for its
 * slowest warp.
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
#include "slots.cuh"
#include "kernel.cuh"
#include "../p09-path-regeneration/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p09-path-regeneration/host.cuh"
