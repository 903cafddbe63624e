/*
 * Stage 30, warp tiles: a warp's 32 rays come from an 8x4 tile of pixels, not from a row of 32.
 *
 * A warp runs its 32 walks in lockstep: it visits the union of the nodes its rays visit, each
 * node's code once for all the lanes that need it, and the lanes that need another wait. The
 * nearer the 32 rays, the more nodes they share. Stage 29's warps took 32 pixels of a row; on
 * 100,000 spheres that row crosses the edges of spheres and the gaps between them. Here the block
 * still covers blockDim.x x blockDim.y pixels, but its threads are handed out by warps: each warp
 * an 8x4 tile, whose rays lie closer together (the farthest two 7.6 pixels apart, against 31 in a
 * row). Where the block's shape is not made of whole tiles (a --block not a multiple of 8x4), the
 * threads keep the rows. Every pixel is rendered by the same code as before, so the image keeps
 * its bits.
 *
 * Builds on 29-only-far-child-pushed.
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
#include "../29-only-far-child-pushed/walk.cuh"
#include "../27-cone-box-test/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
