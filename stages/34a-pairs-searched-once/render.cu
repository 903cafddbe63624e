/*
 * Side stage 34a, pairs searched once: the build's search for each cluster's nearest neighbour
 * computes the area of each pair of clusters once, for both, instead of once from each side.
 *
 * Stage 34's search (stage 26's pick_nearest) has every cluster test the SEARCH_RADIUS clusters
 * on either side: the union of i and j is measured by i, and again by j. Here the thread of
 * cluster i measures its union with each of the SEARCH_RADIUS clusters after it and offers the
 * area to both, as a 64-bit key (the area's bits, then the other's index) that each cluster's
 * slot in shared memory keeps the least of with an atomic minimum. The least key is the least area
 * and, of equal areas, the lowest index: the pick of stage 34, from the same candidates, for half
 * the area tests; in the rounds over the whole GPU (nearest_kernel.cuh) and in the last rounds in
 * one block (block_pick.cuh).
 *
 * The image keeps its bits: the picks, so the merges and the tree, are stage 34's, and the walk
 * is unchanged.
 *
 * Builds on 34-wider-search.
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
#include "block_pick.cuh"
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
