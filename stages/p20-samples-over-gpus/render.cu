/*
 * Stage p20, samples over GPUs: p17's frame split over every GPU of the node by samples, each
 * GPU rendering its share of every pixel's samples, the GPUs' sums added on the first one.
 *
 * A path tracer's frame is many samples of every pixel, each a path whose cost does not depend
 * on the GPU that traces it. So GPU g of N renders the samples job->samples * g / N up to
 * job->samples * (g + 1) / N of every pixel (--gpus N, default every GPU from --device on; no
 * more GPUs than samples): p17's persistent kernel as it stands, its counter of paths started at
 * the GPU's first sample's first path and its last path the GPU's last sample's, so that each
 * path is the path p17 traces under the same number, with the same random numbers. Each GPU has
 * its own of everything p17's frame held: the scene uploaded, the tree built on it, the sums.
 * Then the first GPU takes every other GPU's sums (a peer copy, after that GPU's kernel), adds
 * them to its own, in the GPUs' order, resolves the 8-bit image and copies it home: one image's
 * bytes home, where a split of the rows would have had each GPU copy its own.
 * Written for any number of GPUs; with one (--gpus 1), p17's frame.
 *
 * The image keeps its bits: the sums are whole numbers (SPEC.md section 4's fixed point), so
 * adding a GPU's share to another's is exact, and every sample is p17's.
 *
 * Builds on p17-cone-box-test.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "../p16-nearer-child-first/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p15-clustered-build/fallback.cuh"
#include "../p17-cone-box-test/cone.cuh"
#include "../p17-cone-box-test/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p13-bvh-traversal/trace.cuh"
#include "../p13-bvh-traversal/kernel.cuh"
#include "../p14-gpu-build/morton.cuh"
#include "../p17-cone-box-test/merge.cuh"
#include "../p15-clustered-build/build.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "../p15-clustered-build/paths.cuh"
#include "../p14-gpu-build/scene.cuh"
#include "../p15-clustered-build/tree.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "reduce.cuh"
#include "host.cuh"
