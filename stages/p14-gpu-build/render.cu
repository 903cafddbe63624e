/*
 * Stage p14, the hierarchy built on the GPU: Morton codes, a radix sort, Karras' tree, boxes
 * from the leaves up.
 *
 * p13 builds its tree on the host, top down by the surface area heuristic, on one core while the
 * GPU waits: on a large scene the build costs more than the render. Here the tree is built on
 * the GPU in five passes, as the main chain's stage 23 does: the box of the spheres' centres
 * (a reduction with atomics), each sphere's 63-bit Morton code in that box, CUB's radix sort of
 * the codes, Karras' (2012) radix tree over the sorted codes (one thread per inner node, ties
 * broken by index), and the boxes fitted from the leaves up (one thread per leaf; at each node
 * the second thread to arrive joins the two children's boxes and climbs on). The tree has a leaf
 * per sphere and n - 1 inner nodes; the walk reads both children from the node.
 *
 * The image keeps its bits: the walk's rules are p13's ((t, index), boxes widened by
 * SPEC_BVH_REACH), and every box holds its spheres' centre +- radius as the host build's does.
 *
 * Builds on p13-bvh-traversal.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p13-bvh-traversal/trace.cuh"
#include "../p13-bvh-traversal/kernel.cuh"
#include "morton.cuh"
#include "build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "host.cuh"
