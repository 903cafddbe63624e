/*
 * Stage 31a (side stage), four-wide nodes: the binary tree collapsed four wide on the GPU, a
 * node's four children tested where it stands.
 *
 * Stage 31's walk takes one step a binary node: a dependent load, two box tests, a choice and a
 * stack operation. Here, once the binary tree is built,
 * widen_kernel gives every inner node a wide node: its two children, then the inner child with the
 * largest box opened into its own two, until there are four (a leaf stays a child). A child is
 * stage 31's 16-byte quarter (its index and its box as halves), so a wide node is 64 bytes, two
 * sectors, as many bytes a child as before. The walk loads a node's four children together, tests
 * their boxes, tests its leaves' spheres at once, sorts the entered inner children by where the
 * ray enters them (five exchanges, in registers), takes the nearest and pushes the others. Fewer,
 * wider steps: fewer dependent loads and stack steps, at the price of boxes the binary walk would
 * have skipped under a parent the ray missed.
 *
 * The image keeps its bits: the boxes are stage 31's, tested by the same cone, and the nearest
 * (t, index), and whether any blocker exists, do not depend on the order the walk meets them in.
 *
 * Builds on 31-compact-nodes.
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
