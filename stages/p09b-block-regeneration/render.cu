/*
 * Stage p09b, block regeneration (a side stage): a block restarts its idle threads together
 * (seed 002, "regenerationSK (block)").
 *
 * In p09 each thread takes a new path from the global counter the moment its own ends: one
 * atomic add per path, by whichever lane happens to be free. Here the block takes its new paths
 * together: after every segment all its threads meet at a barrier that also counts the idle ones
 * (__syncthreads_count), one thread takes that many path indices with one atomic add, the first
 * index comes back through shared memory, and the idle thread of rank r (counted in thread order
 * with a warp ballot) starts path first + r. The price is the barrier after every segment, which
 * every warp of the block waits at for the slowest one, until the counter has passed the last
 * path; from then on the threads finish their paths without it.
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
