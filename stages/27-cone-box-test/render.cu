/*
 * Stage 27, the cone box test: the margin that keeps the image's bits moved from every box to
 * the ray, so that a box costs a third of the arithmetic.
 *
 * A box is skipped only when no sphere inside can be reported a hit, and spec_intersect's rounding
 * reports hits up to about 1e-3 of the distance outside a sphere. Stage 26's test (spec_bvh_entry)
 * widens every box, for every ray, by a margin it works out from the box's corners and the ray's
 * origin: some 50 operations a box. But that margin is proportional to the distance along the ray
 * plus a part that depends on the box alone (common/raytrace/spec_bvh.h, "The cone"). So here the
 * build widens each child's box once by the part of its own (spec_bvh_cone_widen_box, in
 * merge_pair), and each ray becomes a cone whose width grows with t: per axis the planes where the
 * cone enters and leaves a slab are one fused multiply-add each (spec_bvh_cone_entry: 6 fma, 5
 * min/max, 6 selects and 2 compares, against 51 operations). An axis the ray runs nearly parallel
 * to the planes of (|d| at most the cone's slope) is bounded by a virtual cone up to where the ray
 * leaves the root's children's boxes (cone_of_walk), so it still culls. The image keeps its bits:
 * the same guarantee, shown in common/raytrace/spec_bvh.h and checked by tests/test_bvh.c against
 * the loop over every sphere on 140,000 random rays.
 *
 * Builds on 26-clustered-build.
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
#include "merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
