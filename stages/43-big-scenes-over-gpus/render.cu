/*
 * Stage 43, big scenes over GPUs: stage 33's frame, the tree built on the GPU and walked, split
 * over every GPU of the node as stage 41 split stage 21's, its rows re-split from the last frame.
 *
 * On a big scene the frame is the walk: stage 33 spends nearly all of a frame of 100,000 spheres
 * in its kernel, and the copy home is a small part of it. More links help little there; more
 * GPUs walking the rows do, if each has what the walk reads. So each GPU gets its own of
 * everything stage 33's frame held (struct gpu_slice): the scene's arrays uploaded to its global
 * memory and the light and camera to its constant memory, every frame; its own tree, built there
 * from them every frame by stage 26's build (the same launches, on each GPU's default stream);
 * its image-plane tables, streams, events and bands, and a device frame from which it copies its
 * bands into its own rows of the one pinned host frame. The rows are split as stage 40 split
 * them for the first frame, and re-split before each frame after it from every GPU's span of the
 * frame before, as stage 41 does: rows do not cost the same, and halves of equal rows do not end
 * together. One host thread drives all of them (stage 40's host half and bands). A GPU's bands
 * are its share of the rows cut into 16, smaller than stage 33's; each band's walk ends in a tail
 * of its slowest blocks, so each GPU runs eight bands at once where stage 33 ran four.
 * Written for any number of GPUs; with one (--gpus 1), stage 33's frame.
 *
 * The image keeps its bits: every GPU builds a tree of the same shape and boxes from the same
 * spheres (where its nodes sit in memory may differ: the build hands out node slots by atomics,
 * as it does from run to run on one GPU), and every pixel is stage 33's render_pixel with such a
 * tree and the same tables and scene, on whichever GPU renders it.
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
#include "../22-bvh-traversal/kernel.cuh"
#include "../30-warp-tiles/render_kernel.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "frame.cuh"
#include "../40-rows-over-gpus/rows.cuh"
#include "build_tree.cuh"
#include "../40-rows-over-gpus/bands.cuh"
#include "upload.cuh"
#include "../41-balanced-rows/split.cuh"
#include "../40-rows-over-gpus/split_report.cuh"
#include "../40-rows-over-gpus/host.cuh"
