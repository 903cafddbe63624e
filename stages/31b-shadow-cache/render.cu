/*
 * Stage 31b (side stage), a shadow cache: each sphere remembers the last sphere found blocking the
 * light of a point on it, and a shadow ray from that sphere tests the remembered blocker before it
 * walks.
 *
 * A shadow ray ends at the first blocker it meets, but the walk must first reach it: box after box
 * down the tree, from the root, for every ray again. Yet the shadow rays of neighbouring points
 * on one sphere are nearly parallel and end on the same few blockers. So the scene gains one int
 * a sphere, last_blocker, emptied (-1) with every frame's build. A shadow ray leaving sphere r
 * first tests sphere last_blocker[r], one load and one sphere test; if it blocks, the answer is
 * known. Otherwise the walk runs as before, and a blocker it finds is written back for the next
 * ray from r. The cache is an old idea of CPU ray tracers (Haines and Greenberg's light buffer,
 * 1986, kept one such cache a light); on the GPU its reads and writes race between threads.
 *
 * The image keeps its bits: the shadow factor only asks whether some sphere blocks, the
 * remembered sphere is tested with the walk's own test on the same data, so a blocker found there
 * is one the walk would have accepted, and any value the race leaves in the cache (the last
 * blocker, an older one, or none) gives the same answer. Only the time depends on the race.
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
#include "scene.cuh"
#include "../31-compact-nodes/walk.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
