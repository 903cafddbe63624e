/*
 * Stage p15, a tree built by clustering: Morton order, then rounds of merging each cluster with
 * its nearest neighbour.
 *
 * p14's radix tree splits where a bit of the Morton codes changes, the middle of a cell of space,
 * not where the spheres leave a gap, and a large sphere's box spreads over its neighbours'; the
 * walk pays for every box a ray enters for nothing. Here the tree is built bottom up by locally
 * ordered clustering (PLOC: Meister and Bittner, 2018), as the main chain's stage 26 builds it:
 * the spheres sorted by Morton code as before, each a cluster; in a round every cluster picks,
 * among the SEARCH_RADIUS on either side in that order, the neighbour whose union box has the
 * least surface area (what a ray pays to enter it), two clusters that picked each other become a
 * node, and CUB's DeviceSelect::Flagged compacts the clusters left. Once FINISH_CLUSTERS or
 * fewer are left, one block does the remaining rounds. A clustered tree has no depth bound: a
 * walk whose stack would overflow finishes with the loop over every sphere.
 *
 * The image keeps its bits: the walk's rules are p14's ((t, index), boxes widened by
 * SPEC_BVH_REACH), and every box is the exact union of its spheres' centre +- radius.
 *
 * Builds on p14-gpu-build.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "fallback.cuh"
#include "intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p13-bvh-traversal/trace.cuh"
#include "../p13-bvh-traversal/kernel.cuh"
#include "../p14-gpu-build/morton.cuh"
#include "merge.cuh"
#include "build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "paths.cuh"
#include "../p14-gpu-build/scene.cuh"
#include "tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p14-gpu-build/host.cuh"
