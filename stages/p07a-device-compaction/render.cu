/*
 * Stage p07a, device compaction (a side stage): the paths in two streams that the device
 * refills and compacts itself (seed 002, "device compaction", its StreamingMK).
 *
 * In p07 every intersection and scatter kernel covers all the frame's paths, and a thread whose
 * path has ended reads its flag and leaves: after a few segments most warps hold a few live
 * paths among many ended ones, and each frame waits for its longest path. Here the paths live in
 * two streams in global memory, an input and an output. A regeneration kernel fills the input
 * stream's empty slots with new paths from a global counter (path q is sample q / pixels of
 * pixel q % pixels, as in p09); the intersection and scatter kernels extend its paths by one
 * segment, and the scatter kernel writes each path that goes on to the output stream, at a slot
 * taken with an atomicAdd on that stream's count: the compaction. Then the streams swap. A path
 * that ends adds its sample to its pixel's 64-bit sums with atomics, which integer sums allow in
 * any order (SPEC-PATH-TRACING.md section 4): the image keeps p07's bits.
 *
 * Every count stays in device memory: the grids are sized for a stream's capacity and threads
 * past the live count leave at once, so the host never waits for a count. It enqueues the
 * iterations in batches, one batch ahead of the GPU, and learns when to stop from one word the
 * last kernel of each batch writes into mapped host memory.
 *
 * Builds on p07-constant-scene.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p07-constant-scene/config.cuh"
#include "rays.cuh"
#include "paths.cuh"
#include "../p07-constant-scene/scene.cuh"
#include "camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "launch.cuh"
#include "record.cuh"
#include "bench.cuh"
#include "host.cuh"
