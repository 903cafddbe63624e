/*
 * Stage 30a, primary-ray packets: a warp walks the tree once for its 32 rays from the camera.
 *
 * Stage 30's warps walk their 32 rays' trees in lockstep, each lane its own walk: where two
 * lanes go on to different nodes, the warp runs each node's code in turn for the lanes that
 * want it. The rays from the camera of an 8x4 tile are nearly alike, and most of their nodes
 * are the same; here the warp walks them as one packet: one node at a time, tested by every
 * lane whose ray reached it. Each lane tests the node's two children for its own ray as before,
 * and three votes of the warp (__ballot_sync) decide the walk: which children any lane enters,
 * and which of them most lanes enter first. The warp goes on to that one and pushes the other,
 * with the lanes that enter it; the stack is the warp's, held one entry a lane in registers and
 * read with __shfl_sync. A lane leaves a box only where its own cone misses it or enters it past
 * its own best t, never nearer than its true hit, and keeps the smallest (t, index), so the image
 * keeps its bits. The shadow and reflection rays, less alike, keep the walk of a ray each.
 *
 * Builds on 30-warp-tiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../25-child-boxes-in-parent/node.cuh"
#include "../26-clustered-build/scene.cuh"
#include "walk.cuh"
#include "../27-cone-box-test/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "kernel.cuh"
#include "render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
