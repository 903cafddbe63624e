/*
 * Stage 33d (side stage), own sphere first: a shadow ray tests the sphere it leaves before it walks
 * the tree, which answers at once for every point on the side of its sphere turned away from the
 * light.
 *
 * A shadow ray starts on a sphere, lifted a little off its surface, and asks whether anything
 * lies between it and the light. Where the point faces away from the light, the ray goes back
 * into its own sphere: the answer is yes, and it is known after one sphere test. Yet stage 33's
 * walk does not know that and walks from the root until it meets a blocker, often that very
 * sphere, some levels down. Here shadow_factor takes the sphere the point lies on and tests it
 * first, with the walk's own test; only if it does not block does the ray walk. The points turned
 * away from the light cover whole regions of the picture (every sphere's dark side), so whole
 * warps of neighbouring pixels skip their shadow walks together, where side stage 31b's cache of
 * the last blocker spared lanes here and there and the warp walked on for the others.
 *
 * The image keeps its bits: the shadow factor only asks whether some sphere blocks, and the own
 * sphere is tested with the walk's own test on the same data, so a blocker found there is one
 * the walk would have accepted.
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
#include "../33-branch-free-boxes/walk.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
