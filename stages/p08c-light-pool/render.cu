/*
 * Stage p08c, light pool (a side stage): a pool of light samples in shared memory (seed 003,
 * "sample from the shared pool").
 *
 * In p08b every candidate of every diffuse hit reads a light picked at random from the whole
 * list in global memory. Here each block first draws PT_LIGHT_POOL_SIZE light samples, one per
 * thread, into shared memory (one global read each), waits once at a barrier, and then every
 * candidate is an entry of that pool picked at random: a shared-memory read, no global one. A
 * block renders one tile of 128 pixels, and the pool is the tile's (estimator light-pool,
 * SPEC-PATH-TRACING.md section 6): the tile's pixels choose among the same 128 samples, so
 * their estimates are correlated, but each is still unbiased.
 *
 * Builds on p08b-next-event.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "../p08b-next-event/paths.cuh"
#include "../p08b-next-event/scene.cuh"
#include "../p08b-next-event/host.cuh"
