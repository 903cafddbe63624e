/*
 * Stage p08, megakernel: one kernel for the whole path (seed 002, "single kernel versus multi
 * kernel").
 *
 * Until p07 the host drove a wavefront: per frame a camera kernel, then for every segment an
 * intersection kernel and a scatter kernel over all paths, then an accumulation kernel, 18
 * launches a frame, each reading its paths from device memory and writing them back. Here one
 * thread follows one path from the camera to its end inside one kernel (a "megakernel"): the
 * ray, the hit and the throughput never leave registers, no launch waits for a finished path,
 * and one launch a frame adds the sample to the pixel's sums. The price: a warp runs until its
 * longest path ends, and the kernel holds the registers of every part of the path at once.
 *
 * Builds on p07-constant-scene.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "rays.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "host.cuh"
