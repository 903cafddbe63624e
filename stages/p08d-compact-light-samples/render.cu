/*
 * Stage p08d, compact light samples (a side stage): 16-byte pool entries (seed 003,
 * "compacting our LightSample").
 *
 * p08c's pool holds whole samples, 48 bytes each (light, sphere, point, normal, emission,
 * inverse density): 6 KiB of shared memory a block, and a candidate loads 48 bytes. Here an
 * entry is 16 bytes, the light's index and the unit normal of the point, and a candidate
 * rebuilds the rest from its light (point = centre + radius * normal, the emission, the
 * density), with the same arithmetic as the draw, so the picture is p08c's to the bit. Less
 * shared memory and one 16-byte load per candidate, for a 32-byte read of the light from global
 * memory again (a cached one: the pool's 128 entries name at most 128 lights).
 *
 * Builds on p08c-light-pool.
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
