/*
 * Stage p13, a bounding volume hierarchy: every ray finds its sphere through a tree of boxes.
 *
 * Until now each segment of a path tested every sphere of the scene, read from constant memory,
 * which holds at most 1,024 of them: the time of a ray grew with the sphere count. Here the spheres
 * and their materials live in global memory, and a hierarchy of boxes over them is built on the
 * host before the launch (the main chain's, common/raytrace/bvh.c: top down by the surface area
 * heuristic, leaves of at most four spheres; timed as the build phase) and uploaded with them. A
 * ray walks the tree from the root with a small stack: a box it cannot enter before its best hit so
 * far is skipped with everything inside, so a ray tests the spheres of a few leaves instead of all
 * n. The scene may hold 100,000 spheres, the format's limit.
 *
 * The image keeps its bits. The tree meets spheres in another order than the file's, so the nearest
 * hit is the smallest (t, index): among equal t the first sphere in file order wins, as the track's
 * loop decides (pt_closest_hit_in_order). And a box is skipped only when no sphere inside can pass
 * pt_sphere_hit's rounded test: spec_bvh_may_hit (common/raytrace/spec_bvh.h) widens each box, for
 * each ray, by more than the rounding can reach.
 *
 * Builds on p12-host-work-behind-render.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_bvh.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "host.cuh"
