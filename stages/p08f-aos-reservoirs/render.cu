/*
 * Stage p08f, array-of-structs reservoirs (a side stage): p08e with its two reservoir buffers
 * kept as seed 003 kept them before its first lesson, an array of structs (its `Reservoir*
 * initial_samples`), instead of p08e's structure of arrays (its `ReservoirBuffer`).
 *
 * Entry p of `current` and of `final` is pixel p's whole reservoir, one 28-byte record
 * (struct pt_restir_reservoir: light, normal, weight_sum, target, count, in the order of the
 * seed's struct), where p08e keeps 7 arrays of 4-byte fields. A warp's 32 pixels are
 * consecutive: a field of their records spans 896 bytes, 28 sectors of 32 bytes, where p08e's
 * 32 entries of one array are 128 contiguous bytes, 4 sectors. The temporal test (`count` of
 * `final`), the loads of a pixel's own reservoir and the stores of `current` and `final` touch
 * 7 times the sectors per instruction; a neighbour's record, read at a random pixel, spans 1 or
 * 2 sectors where p08e's spans 7 (one per array). Which weighs more is this stage's question.
 *
 * Nothing else changes: the camera hits stay a structure of arrays, the allocation is p08e's
 * 136 bytes a pixel, and every pass is pathtrace/pt_reservoirs.h's arithmetic (the spatial
 * pass the same statements as pt_restir_spatial, on records): the image is p08e's and
 * build/pt-reference --estimator reservoirs' to the bit. A record's fields cannot be set by
 * cudaMemset, so a launch (empty_kernel) empties `final` before frame 0.
 *
 * Builds on p08e-reservoirs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_reservoirs.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "kernel.cuh"
#include "paths.cuh"
#include "../p08b-next-event/scene.cuh"
#include "../p08e-reservoirs/host.cuh"
