/*
 * Stage p17, the cone test: the main chain's box test of stage 27 on the path tracer.
 *
 * p16 tests a box as the CPU reference does (spec_bvh_entry): for every box and every ray it
 * works out, from the box's corners and the ray's origin, how far rounding can carry a reported
 * hit outside the box, widens the box by that much and intersects the ray's slabs, about fifty
 * operations. That margin is mostly a part that grows with the distance along the ray and a part
 * that the box alone decides. Here, as in the main chain's stage 27, the box is widened once, at
 * build time, by the part the box decides (spec_bvh_cone_widen_box), and the part that grows with
 * the distance becomes a cone around the ray, made once a ray (its slope 1.38e-3 |d|): a box is
 * the six planes of its widened box against the cone's bounds, a fused multiply-add each, and
 * about twenty operations in all. pt_sphere_hit reports the t spec_intersect reports (its
 * discriminant is spec_intersect's divided by 4, exactly), so the cone's bound on where a
 * reported hit can lie holds for it as it does for the main chain.
 *
 * The image keeps its bits: the cone keeps every box whose spheres a ray may be reported to hit at
 * or before the best t, and a sphere wins on (t, index) whatever order the walk meets it in.
 *
 * Builds on p16-nearer-child-first.
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
#include "cone.cuh"
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
