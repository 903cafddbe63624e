/*
 * Stage p16, the nearer child first: the main chain's walk order on the path tracer.
 *
 * p15's walk pops a node, loads it to test its own box, and pushes both children, the left on
 * top, whatever the ray's direction: it meets the spheres in the tree's order, finds the closest
 * hit late, and enters every box in front of it. Here a node holds its two children's boxes
 * (stage 25), so the walk tests both where it stands, before going to either; it goes on to the
 * child the ray enters first (stage 24), pushes only the farther one with where the ray enters it
 * (stage 29), and drops a pending child whose box the ray enters after the best hit found since
 * it was pushed. A leaf child's sphere is tested at once, as before, without a box of its own.
 *
 * The image keeps its bits: the box test is p15's (spec_bvh_entry, boxes widened by
 * SPEC_BVH_REACH), a child is dropped only when it cannot hold a hit at or before the best t,
 * and a sphere wins on (t, index) whatever order the walk meets it in.
 *
 * Builds on p15-clustered-build.
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
#include "../p15-clustered-build/fallback.cuh"
#include "intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p13-bvh-traversal/trace.cuh"
#include "../p13-bvh-traversal/kernel.cuh"
#include "../p14-gpu-build/morton.cuh"
#include "merge.cuh"
#include "../p15-clustered-build/build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "../p15-clustered-build/paths.cuh"
#include "../p14-gpu-build/scene.cuh"
#include "../p15-clustered-build/tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p14-gpu-build/host.cuh"
