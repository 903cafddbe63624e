/*
 * Stage 22, a bounding volume hierarchy: every ray finds its spheres through a tree of boxes.
 *
 * Until now every stage's cost grew with the sphere count: the bins of stage 14 and the packets of
 * stage 17 pick, per tile, light cell or warp, the spheres a ray may meet, but they test each
 * sphere to decide, and constant memory held at most 1,024. Here the spheres live in global memory,
 * and a hierarchy of boxes is built over them on the host every frame (common/raytrace/bvh.c: top
 * down by the surface area heuristic, leaves of at most four spheres) and uploaded with them. A ray
 * walks the tree from the root with a small stack: a box it cannot enter is skipped with everything
 * inside, so a ray tests the spheres of a few leaves, about log2(n) boxes deep, instead of all n.
 * The tile bins, the light buffer, the warp packets and their setup are gone.
 *
 * The image keeps its bits. The tree meets spheres in another order than the file's, so the nearest
 * hit is the smallest (t, index): among equal t the first sphere in file order wins, as SPEC.md's
 * loop decides. And a box is skipped only when no sphere inside it can pass the rounded
 * intersection test: spec_bvh_may_hit (common/raytrace/spec_bvh.h) widens each box, for each ray,
 * by more than the rounding can reach (SPEC_BVH_REACH). A shadow ray stops at its first blocker, in
 * any order. The scene may hold 100,000 spheres, the format's limit.
 *
 * Kept from earlier stages: stage 12's half of b (powers of two scale a float exactly), and
 * stage 20's skips (the specular cutoff, spheres a reflection leaves; the README of
 * 20-skipped-work).
 *
 * Builds on 21-persistent-rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "scene.cuh"
#include "walk.cuh"
#include "plane.cuh"
#include "kernel.cuh"
#include "render_kernel.cuh"
#include "frame.cuh"
#include "build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "upload.cuh"
#include "../13-steady-state/host.cuh"
