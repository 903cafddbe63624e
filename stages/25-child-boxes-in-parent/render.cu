/*
 * Stage 25, children's boxes in the parent: a node laid out for the walk that reads it.
 *
 * Stage 24's walk tests a node's two children when it takes the node, yet each node held its own
 * box: taking a node read it (for its children), then read each inner child (for its box), and a
 * leaf's sphere went through order[] to the sphere's arrays, two loads one after the other. Here
 * a node holds its children's boxes (64 bytes, each box two 16-byte loads beside the children's
 * indices), and the spheres' two 16-byte views are copied into tree order by the build, so a
 * leaf's test reads its slot directly; order[] is read only for a sphere that may become the
 * nearest hit (its index decides a tie) or that blocks a shadow ray. Every level of the walk
 * waits for one round of loads, all addressed by the node's index, not three rounds one after
 * the other. The root's own box is no longer tested: a ray that misses the scene learns it from
 * the root's two children.
 *
 * The image keeps its bits: the same boxes, widened the same way, and the nearest hit is still
 * the smallest (t, index), in whatever order the spheres are met.
 *
 * Builds on 24-near-child-first.
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
#include "../23-gpu-build/karras.cuh"
#include "build.cuh"
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
