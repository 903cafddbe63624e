/*
 * Stage 31, compact nodes: an inner node's two child boxes as half-precision floats, rounded
 * outward, so that the node is one 32-byte sector and a child one 16-byte load.
 *
 * Stage 30's node holds its children's boxes in floats: 64 bytes, two 32-byte sectors, read by six
 * loads (the two indices, then, once an index says the child is an inner node, its box's two
 * 16-byte quarters). Here each of a box's six planes is a half (IEEE binary16: 11 significant
 * bits), the low ones rounded down and the high ones up (__float2half_rd, __float2half_ru), and
 * each child's 16-byte quarter holds its index and its box: two loads a node, issued together, one
 * sector. A plane beyond the halves' range becomes an infinity on its outer side only (a box
 * unbounded there). The box grows by at most one half's spacing a side (at most 2^-10 of the
 * coordinate, 0.0078 between 8 and 16; 2^-24 below 2^-14). Against the same best t, a box is
 * entered wherever its float box is: the cone test keeps every box whose spheres a ray may be
 * reported to hit at or before that t, for any box that contains the float one (its rounding grows
 * with the plane by 4 eps of the growth, which the growth itself covers). So the nearest (t,
 * index), and whether any blocker exists, do not depend on the order the walk meets the spheres
 * in, and the image keeps its bits. The price: six conversions a box, two packed boxes held in
 * registers from their load to their tests, a few more nodes.
 *
 * Builds on 30-warp-tiles.
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
#include "node.cuh"
#include "../26-clustered-build/scene.cuh"
#include "walk.cuh"
#include "merge.cuh"
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
