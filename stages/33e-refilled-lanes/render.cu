/*
 * Side stage 33e, refilled lanes: a warp's lanes take their pixel's next ray, or the next pixel,
 * as their walks end, instead of waiting for the warp's longest walk.
 *
 * Until stage 33 a thread walks its pixel's four rays one after another, each walk a loop, and a
 * warp runs each loop as long as its longest walk: a lane whose walk has ended waits, its slot in
 * every instruction of the warp spent for nothing, until every lane of the warp has ended that
 * walk. Here the walk is a step (walk_steps.cuh: start_walk, step_walk) and the kernel one loop:
 * every turn each walking lane takes its walk one node on; a lane whose walk has ended takes its
 * pixel's next walk (kernel.cuh: what a pixel works out between walks, kept in shared memory), and
 * a lane whose pixel is done takes the next pixel of the band. The warps are persistent (Aila and
 * Laine 2009): as many as the GPU holds at once, each taking the band's pixels a tile of 8x4 at a
 * time from a counter (render_kernel.cuh); so that the code between walks runs for several lanes
 * at once, a lane that has ended waits until REFILL_LANES lanes of its warp have.
 *
 * The image keeps its bits: each ray is walked and each pixel worked out by the same operations in
 * the same order as in stage 33; only when, and in which lane, changes.
 *
 * Builds on 33-branch-free-boxes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_fp16.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../31-compact-nodes/node.cuh"
#include "../26-clustered-build/scene.cuh"
#include "../32-lean-box-test/box_test.cuh"
#include "../33-branch-free-boxes/walk.cuh"
#include "walk_steps.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "kernel.cuh"
#include "render_kernel.cuh"
#include "frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
