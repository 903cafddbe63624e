/*
 * Stage 26a (a side stage: it does not pay), a tree four wide: each node of the walk holds up to
 * four children, the grandchildren of a node of stage 26's binary tree.
 *
 * Stage 26's walk visits a node, tests its two children's boxes, pushes the entered ones and pops
 * the nearest: a binary tree of 100,000 clustered spheres is some 40 levels deep, and each level
 * is a dependent load, a branch on which child is nearer and a stack operation. Here, after the
 * clustered build, `wide_kernel` gives every binary node a wide node whose children are its
 * grandchildren (a child that is a leaf stays a child): two to four children, their boxes in the
 * node, 128 bytes, one 32-byte sector a child. The walk starts at the root's wide node, tests its
 * children's boxes (four independent tests, not two rounds of two), sorts the entered ones by
 * where the ray enters them and pushes them farthest first, and goes on at the nearest; the node
 * it goes on at is a grandchild of the one before, so the walk visits half the levels. It tests
 * the grandchildren's boxes even where the binary walk would have skipped both under a child's
 * box it missed, and a grandchild that is a leaf has its sphere tested without the child's box
 * culling it first: fewer steps, but up to twice the box tests in a step. It does not pay here:
 * as many warp instructions as stage 26's walk, issued less often, its wide nodes missing the L1
 * cache more (the stage's README has the numbers). A walk whose stack would overflow still
 * finishes with the loop over every sphere (stage 26's fallback).
 *
 * The image keeps its bits: the boxes are stage 26's exact unions, widened as before, and the
 * nearest hit is the smallest (t, index), whatever order the walk meets the spheres in.
 *
 * Builds on 26-clustered-build.
 */
#include <limits.h>
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
#include "node.cuh"
#include "scene.cuh"
#include "walk.cuh"
#include "../26-clustered-build/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "wide.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
