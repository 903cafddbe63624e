/*
 * Side stage p17b, walks in steps: a thread whose walk ends starts its next one while its warp
 * walks on.
 *
 * p17's persistent kernel takes a turn a segment: every thread walks the tree for its ray to the
 * end, scatters, and only then does the warp go round again. The 32 rays of a warp, scattered
 * every way after the first bounce, walk for very different numbers of nodes, and a warp runs as
 * long as its longest walk. Here the kernel's turn is one node of a walk (walk_step): the walk's
 * state (best hit, cone, current node, stack) lives in the thread from turn to turn, and a thread
 * whose walk is over ends its segment (end_segment: the scatter, or the sample added) and starts
 * the next walk, or takes the next path, once fewer than REFILL_BELOW lanes of its warp are still
 * walking, so that the ends of segments, whose code diverges from the walk's, run for many lanes
 * at once; the other lanes go on walking meanwhile.
 *
 * The image keeps its bits: each ray is walked node by node exactly as p17 walks it, and each path
 * is the same sequence of segments; only the interleaving of the threads' work changes.
 *
 * Builds on p17-cone-box-test.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "../p16-nearer-child-first/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p15-clustered-build/fallback.cuh"
#include "../p17-cone-box-test/cone.cuh"
#include "intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "../p14-gpu-build/morton.cuh"
#include "../p17-cone-box-test/merge.cuh"
#include "../p15-clustered-build/build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "../p15-clustered-build/paths.cuh"
#include "../p14-gpu-build/scene.cuh"
#include "../p15-clustered-build/tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p14-gpu-build/host.cuh"
