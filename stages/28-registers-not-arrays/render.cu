/*
 * Stage 28, registers, not arrays: the walk's two children and their entry distances chosen by
 * selects, so that they stay in registers.
 *
 * A thread's registers cannot be indexed at run time: an array the code indexes with a value known
 * only when the kernel runs is put in local memory, the thread's slice of global memory, cached in
 * L1. Stage 27's walk wrote its two children and their entry distances into small arrays and
 * pushed enter[far] and children[far], with far worked out from the two distances: so both arrays
 * lived in local memory, and every node the walk visited cost stores of the four values and loads
 * of them back. Here the loops over the two children are unrolled, so every index is a constant,
 * and the near and far child are chosen by selects: the arrays become registers. What is left in
 * local memory is the stack, which is indexed by its depth. The walk, its order and the image are
 * stage 27's.
 *
 * Builds on 27-cone-box-test.
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
