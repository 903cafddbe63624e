/*
 * Side stage 33f, persistent tiles: as many warps as the GPU holds at once, each taking the band's
 * next tile of pixels from a counter until none is left, in place of a grid that deals out rows.
 *
 * In stage 33 each band's grid is about one wave of blocks, and each block takes every
 * gridDim.y-th row of blocks of the band: its share is fixed at the launch, whatever its rows
 * cost. Where rows cost unevenly (a walk of the tree is long where rays meet many boxes) some
 * blocks run on long after the others have ended, and the SM slots they leave stay empty until
 * the next band's blocks arrive. Here the work is dealt as it is done: a warp that has rendered its
 * tile takes the next one (one atomicAdd a tile of 8x4 pixels, on a counter per band set to 0
 * before the band's kernel), so that every warp stays busy until the band's last tiles, and more
 * warps are there to hide the latency of the walks' loads. The price: an atomicAdd for every 32
 * pixels, all on the band's one counter, and the counter's reset before each band.
 *
 * The image keeps its bits: each pixel is rendered by stage 33's render_pixel; only which warp
 * renders it, and when, changes.
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
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "render_kernel.cuh"
#include "frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
