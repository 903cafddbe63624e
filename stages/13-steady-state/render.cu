/*
 * Stage 13, steady state: many frames, every allocation made once.
 *
 * A program that renders one frame pays for its memory every time: mapping, touching and pinning
 * the host frame buffer, allocating the device one, creating streams and events, and freeing it
 * all again. An interactive renderer pays that once and then renders frame after frame into the
 * same buffers. With --frames N this stage renders the first frame exactly as stage 12 does (all
 * phases timed), then N - 1 more that reuse every allocation: each uploads the scene, launches
 * the bands and waits for the last copy. The report adds the mean and the fastest of those frames
 * (steady_frame, steady_frame_min): what a frame costs once nothing is allocated. The per-frame
 * work moves into functions so both paths share it.
 *
 * Kept from stage 12: the intersection solves the quadratic with half of b, and the factors 2
 * and 4 it drops are powers of two, which scale a float exactly.
 *
 * Builds on 12-lean-intersection.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../12-lean-intersection/constants.cuh"
#include "../12-lean-intersection/intersect.cuh"
#include "../12-lean-intersection/trace.cuh"
#include "../12-lean-intersection/kernel.cuh"
#include "frame.cuh"
#include "build_tree.cuh"
#include "bands.cuh"
#include "upload.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
