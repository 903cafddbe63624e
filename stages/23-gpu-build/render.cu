/*
 * Stage 23, the hierarchy built on the GPU: a tree over 100,000 spheres, every frame.
 *
 * Stage 22 built its tree on the host, one node after another, and uploaded it, every frame. Here
 * the GPU builds it in five steps, each a parallel pass (Karras 2012, "Maximizing parallelism in
 * the construction of BVHs, octrees, and k-d trees"): the box of the spheres' centres (a reduction
 * with atomics); a 63-bit Morton code per sphere, its centre's place in that box with the bits of
 * x, y and z interleaved, so that spheres close in space are close in the code's order; the codes
 * sorted with CUB's radix sort (stable: equal codes keep file order); the tree over the sorted
 * codes, one thread per inner node, each finding its range and split from the codes' common
 * prefixes alone; and the boxes fitted from the leaves up, where the second thread to reach a node
 * (an atomic counter per node) joins its children's boxes and goes on. Only the spheres go up each
 * frame; the build is its own phase.
 *
 * The tree is Karras', so its layout is too: n - 1 inner nodes, each with two children that are
 * inner nodes or single spheres (leaves), and no box of its own for a leaf: a leaf is its
 * sphere's test. The walk and its exactness rules are stage 22's: the widened boxes
 * (common/raytrace/spec_bvh.h) and the nearest hit by (t, index).
 *
 * Builds on 22-bvh-traversal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "node.cuh"
#include "scene.cuh"
#include "walk.cuh"
#include "karras.cuh"
#include "build.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "morton.cuh"
#include "build_launches.cuh"
#include "build_tree.cuh"
#include "tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
