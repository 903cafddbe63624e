/*
 * Stage 33, branch-free boxes: a node's two children's boxes tested without a branch, a leaf's
 * box too, and a leaf's sphere only where the ray's cone enters its box.
 *
 * Stage 32 tests a child's box only if the child is an inner node, and a leaf's sphere at once.
 * Each box test is thus the body of a branch, and on a GPU a branch that lanes of one warp may
 * take differently costs more than its jump: the compiler brackets it with a convergence barrier
 * (BSSY before, BSYNC after) so that the warp's lanes meet again behind it, three instructions
 * of control a box on top of the test's own, issued by the warp whichever lanes take it. Here
 * both boxes are tested unconditionally, the same instructions for every lane, whatever its
 * children are: a leaf's box is in its parent like any child's (stage 25 put it there, and
 * stage 31 packed it), and testing it first lets a leaf's sphere be skipped where the cone misses
 * the box, so fewer lanes run the sphere tests, which stay in their branch. A scene of one sphere
 * has a root that is a leaf and no node to hold its box: the walk starts it in a box of all space.
 *
 * The image keeps its bits: a leaf's box is its sphere's box, widened and rounded outward as every
 * box is, so the cone test keeps it wherever the sphere may be reported hit at or before the best
 * t so far, and a leaf it drops holds no sphere the answer needs.
 *
 * Builds on 32-lean-box-test.
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
