/*
 * Side stage p17a, compact nodes: the main chain's stage 31 on the path tracer, a node one sector.
 *
 * p17's node holds its two children's boxes in floats: 64 bytes, two 32-byte sectors, four
 * 16-byte loads. Here each of a box's six planes is a half (IEEE binary16), the low ones rounded
 * down and the high ones up, and a child is its index and its packed box in 16 bytes: a node is
 * 32 bytes, one sector, two loads. A plane beyond the halves' range becomes an infinity on its
 * outer side only. The walk widens each half back to a float just before the box is tested.
 *
 * The image keeps its bits: a box that holds the widened float box is entered wherever that one
 * is (the cone test's own rounding grows with the plane by at most what the widening covers), and
 * a sphere wins on (t, index) whatever order the walk meets it in.
 *
 * Builds on p17-cone-box-test.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_fp16.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p15-clustered-build/fallback.cuh"
#include "cone.cuh"
#include "../p17-cone-box-test/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p13-bvh-traversal/trace.cuh"
#include "../p13-bvh-traversal/kernel.cuh"
#include "../p14-gpu-build/morton.cuh"
#include "merge.cuh"
#include "../p15-clustered-build/build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "../p15-clustered-build/paths.cuh"
#include "../p14-gpu-build/scene.cuh"
#include "../p15-clustered-build/tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "../p14-gpu-build/host.cuh"
