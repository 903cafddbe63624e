/*
 * Stage 33c (side stage), depth-first nodes: the built tree's nodes laid out in depth-first order,
 * so that a node's first child lies right behind it in memory, often in the same cache line.
 *
 * What stage 33's walk waits on most is the load of each node it steps to. The clustered build
 * (stage 26) numbers nodes in the order the rounds of merging make them, down from the root's 0,
 * and a node's children lie wherever their rounds put them: each step of a walk is a load from
 * another place, a new 128-byte line in L1 (four 32-byte nodes), often a new trip to L2. Here,
 * after the build, four passes over the inner nodes lay the tree out depth-first (parent_kernel:
 * each node tells its children who their parent is; size_kernel: the size of every subtree,
 * counted bottom-up as stage 23's fit pass made boxes; place_kernel: a node's place, one step for
 * each node on its way to the root plus, for a second child, its first sibling's subtree;
 * move_kernel: each node to its place, its children renamed), and the nodes are copied back. A
 * walk that goes on to a node's first child then reads the next 32 bytes, and the subtree below
 * a node is one stretch of memory. The build phase does the four passes and the copy each frame.
 *
 * The image keeps its bits: the tree is the same, only its nodes' names and places change, and
 * the walk visits the same boxes and spheres in the same order.
 *
 * Builds on 33-branch-free-boxes.
 */
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
#include "../26-clustered-build/scene.cuh"
#include "../32-lean-box-test/box_test.cuh"
#include "../33-branch-free-boxes/walk.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "layout.cuh"
#include "build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
