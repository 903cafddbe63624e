/*
 * Stage p08a, image tiles (a side stage): the frame in tiles, each tile one launch with all its
 * samples (seed 002, "image tiling").
 *
 * p08 launches its path kernel once per sample over the whole frame; here the frame is cut into
 * N x N tiles (--tiles N) and each tile is one launch of the same path kernel that traces every
 * sample of every pixel of the tile: tile width x tile height x samples paths (the seed's
 * paths = tile.width * tile.height * iterations), N * N launches one after the other. Two samples
 * of a pixel now run in one launch, so the sums are added with 64-bit atomics; integer sums do
 * not depend on the order of the additions, so the image keeps every bit. A renderer tiles to
 * keep the host in control between launches (a responsive interface, progressive display) and
 * to need memory for one tile only; what it costs is the question: every launch ends with its
 * own tail of long paths while SMs idle, and once a tile's paths are fewer than the GPU holds at
 * once, the launch cannot fill it. --tiles 1 is one launch of every path of the frame.
 *
 * Builds on p08-megakernel.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "../p08-megakernel/trace.cuh"
#include "kernel.cuh"
#include "../p08-megakernel/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "host.cuh"
