/*
 * Stage 34, a wider search: each cluster of the clustered build looks for its nearest neighbour
 * among 32 clusters on either side in Morton order instead of 16, and a block reads its clusters'
 * neighbourhoods from shared memory.
 *
 * Stage 26's build (PLOC) merges, round after round, the clusters that pick each other as the
 * neighbour whose union box has the least surface area, the cost the surface area heuristic
 * charges a ray for entering it. A cluster considers only SEARCH_RADIUS clusters on either side
 * in Morton order: a wider search finds better partners where the curve's order separates
 * clusters near in space, and the tree's boxes are smaller, so a walk enters fewer of them; but
 * every round's search costs twice the area tests. Here the radius is 32, and the search's loads
 * are taken off the caches: a block of 256 threads loads its clusters and the 32 on either side of
 * them into shared memory once (320 clusters, 10 KB), and each thread picks from there.
 *
 * The image keeps its bits: the tree is another tree of the same spheres, its boxes exact unions
 * widened as before, and the walk's answer (the smallest (t, index)) depends on no tree's shape.
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
/* The radius of each cluster's search for its neighbour, stage 26's 16 doubled (build.cuh). */
#define SEARCH_RADIUS 32
#include "../26-clustered-build/build.cuh"
#include "nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
