/*
 * Stage 33a (side stage), the next node early: the node the walk goes to next is chosen, and its
 * children's load issued, before the current node's spheres are tested, so that the load's
 * latency passes while they are.
 *
 * Stage 33's loop tests a node's boxes, then its leaves' spheres, then chooses where to go and
 * only then loads that node's children, which the next box test needs at once: every step of the
 * walk waits for a load (from L1, from L2 for a large tree) with nothing else to do. Yet the
 * choice depends on the spheres only when one of them comes nearer than the chosen child's box,
 * which is rare. So here the likely next node (the nearer entered inner child, or else the
 * pending child on top of the stack) is known right after the box tests, its children's load is
 * issued, and the spheres are tested while it is under way. The choice is then made exactly as
 * before; where it differs from the likely one, the walk loads what it chose.
 *
 * The image keeps its bits: the walk visits the same nodes in the same order and tests the same
 * boxes and spheres; only when a node's children are loaded changes.
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
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
