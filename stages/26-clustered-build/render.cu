/*
 * Stage 26, a tree built by clustering: the hierarchy made on the GPU as a good host build makes
 * it, bottom-up from the nearest neighbours.
 *
 * Stage 25's tree is Karras' radix tree over Morton codes: fast to build, but its splits fall
 * where the codes' bits change, not where the spheres leave space between them, and a large
 * sphere goes where its centre's code puts it. Here the spheres are still sorted by Morton code,
 * but the tree is made by locally ordered clustering (PLOC, Meister and Bittner 2018): each
 * cluster (at first a sphere) looks at the SEARCH_RADIUS clusters on either side in that order
 * and picks the one whose union box has the least surface area; two clusters that pick each
 * other become a node; the survivors are compacted (CUB's DeviceSelect) and the rounds repeat
 * until one cluster, the root, is left. A node's children's boxes are written into it when it is
 * made, so the fit pass is gone. While many clusters are left a round is three launches over the
 * GPU, and the host reads the count back every few rounds to size them; the last rounds, of
 * FINISH_CLUSTERS or fewer, run in one block with its barriers and a block-wide prefix sum.
 *
 * The walk is stage 25's, but a clustered tree has no depth bound like Karras' 81 levels: a ray
 * whose stack would overflow finishes with the loop over every sphere (SPEC.md's own), which
 * finds the same answer. The image keeps its bits: the boxes are exact unions, widened as before.
 *
 * Builds on 25-child-boxes-in-parent.
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
#include "scene.cuh"
#include "walk.cuh"
#include "merge.cuh"
#include "build.cuh"
#include "nearest_kernel.cuh"
#include "block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
