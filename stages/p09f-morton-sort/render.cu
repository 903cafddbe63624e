/*
 * Stage p09f, Morton sort (a side stage): block compaction by sorting on a Morton code (seed
 * 002, "StreamingSK with sorting", Z-sorting).
 *
 * p09e packs a block's live paths to the front of its slots in the order they had; here the
 * block sorts its paths by a 30-bit Morton (Z-order) code of their ray's origin, 10 bits an
 * axis in a box around the scene's small spheres, with CUB's BlockRadixSort, and an ended path
 * gets a key above every code, so that the sort compacts too: the live paths come first, paths
 * that start near each other in neighbouring slots (the same warp, likely the same surface).
 * Their state then moves through shared memory as in p09e, into the space the sort used. The
 * price: a radix sort of 31-bit keys (8 passes of 4 bits, each a block scan and an exchange
 * through shared memory) where p09e scanned one bit. Seed 002 found no gain.
 *
 * Builds on p09e-block-compaction.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_radix_sort.cuh>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p09-path-regeneration/trace.cuh"
#include "../p09e-block-compaction/slots.cuh"
#include "kernel.cuh"
#include "../p09-path-regeneration/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "host.cuh"
