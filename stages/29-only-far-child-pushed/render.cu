/*
 * Stage 29, only the far child pushed: the walk goes on to the nearer of the two children it
 * enters straight from registers, and only the farther waits on the stack.
 *
 * Stage 28's walk pushed both entered children, the farther first, and popped the nearer at once:
 * a store to the stack and a load straight back, in local memory, for nearly every node it visited
 * (a walk pushes a child for each node it visits). Here the nearer child becomes the next node
 * without the round trip: a local store and a load fewer a node, the stack at most one entry a
 * level. The pop is left for the walks that have no child to take (both missed, or the nearer
 * entered past the best hit, which drops the farther too): there the stack's entries are tested
 * against the best t as before. The walk visits the same nodes in the same order (the nearer child
 * was always popped first, and dropped by the same comparison), so the image keeps its bits.
 *
 * Builds on 28-registers-not-arrays.
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
#include "../27-cone-box-test/merge.cuh"
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
