/*
 * Stage 32, a lean box test: the cone test of a child's box in about two thirds of the
 * instructions, each axis's two planes picked by one byte permutation chosen once a ray, and the
 * minima and maxima the hardware's own.
 *
 * The walk spends most of its issue slots testing boxes, and stage 31's test, compiled from
 * spec_bvh_cone_entry as the CPU reference runs it, is mostly compares and selects: per axis a
 * compare of the enter scale's sign (the same for every box of the ray) and two selects of the
 * near and the far plane, and per minimum or maximum a NaN test, a compare and a select, because
 * spec_min_num and spec_max_num are written as comparisons. Here the sign of each axis is turned
 * once a walk into a selector of __byte_perm (PRMT), which takes an axis's two planes, as halves
 * out of the two words of the packed box that hold them, into one word, near plane low and far
 * plane high: one instruction an axis. And fminf and fmaxf are one instruction each (FMNMX):
 * IEEE minNum and maxNum, which like spec_min_num and spec_max_num return the other operand where
 * one is NaN.
 *
 * The image keeps its bits: the test gives spec_bvh_cone_entry's answer for every box (the same
 * planes, the same fused multiply-adds, the same minima and maxima but for the sign of a zero,
 * which only enters comparisons), so the walk enters the same boxes in the same order.
 *
 * Builds on 31-compact-nodes.
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
#include "box_test.cuh"
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
