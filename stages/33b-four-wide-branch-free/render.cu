/*
 * Stage 33b (side stage), four-wide nodes, branch-free: the binary tree collapsed four wide on
 * the GPU, a node's four children's boxes tested without a branch by stage 32's lean test.
 *
 * Side stage 31a collapsed stage 31's tree four wide and lost: its box test was still a third of
 * compares and selects in a branch of its own, four of them a node, and a wider node gave a
 * warp's lanes more ways to differ. Since then a box test is lean (stage 32) and branch-free
 * (stage 33), and what stage 33's walk waits on most is the load of each node it steps to. Here
 * the walk takes 31a's wide nodes: once the binary tree is built, widen_kernel gives every inner
 * node its two children, then the inner child with the largest box opened into its own two,
 * until there are four (a leaf stays a child), each stage 31's 16-byte quarter, 64 bytes a node.
 * The walk loads a node's four children together, tests their four boxes without a branch (a
 * leaf's too, an empty slot entered nowhere), a leaf's sphere where its box is entered, sorts the
 * entered inner children by where the ray enters them (five exchanges, in registers), takes the
 * nearest and pushes the others. Half as many steps, each a dependent load, a stack operation and
 * the branches around them, for the boxes a binary walk would have skipped under a parent the
 * ray missed.
 *
 * The image keeps its bits: the boxes are stage 31's, tested by the same cone, a leaf's box holds
 * its sphere, and the nearest (t, index), and whether any blocker exists, do not depend on the
 * order the walk meets them in.
 *
 * Builds on 33-branch-free-boxes.
 */
#include <limits.h>
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
#include "wide_node.cuh"
#include "scene.cuh"
#include "../32-lean-box-test/box_test.cuh"
#include "walk.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
