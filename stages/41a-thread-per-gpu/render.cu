/*
 * Side stage 41a, a host thread a GPU: each GPU's setup, kernels and copies launched by a host
 * thread of its own, the GPUs' launches made at once.
 *
 * Stage 41's one host thread launches every band of every GPU: a band is five CUDA calls (the
 * device made current, the kernel, its event, the copy stream's wait, the copy), some
 * microseconds each, and a frame over N GPUs holds 16 N bands. While the calls for one GPU's
 * bands are made, the others wait for theirs; once the calls for a frame take longer than one
 * GPU's kernels, the GPUs wait for the host. Here the calling thread starts a thread for every
 * GPU but the first, launches the first GPU's share itself, and joins the others: each thread
 * makes its GPU current once and launches its setup and its bands in order, and the GPUs' calls
 * are made at once, on as many cores. The threads are made and joined every frame; what that
 * costs is in the steady frame.
 *
 * The image keeps its bits: every kernel, copy and event is stage 41's, on the same streams,
 * only launched by another thread; which thread launches a band changes nothing it computes.
 *
 * Builds on 41-balanced-rows.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../20-skipped-work/packet.cuh"
#include "../19-global-sphere-loads/packet_bits.cuh"
#include "../20-skipped-work/closest.cuh"
#include "../20-skipped-work/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../21-persistent-rows/bins.cuh"
#include "../21-persistent-rows/plane.cuh"
#include "../40-rows-over-gpus/setup.cuh"
#include "../21-persistent-rows/kernel.cuh"
#include "../40-rows-over-gpus/frame.cuh"
#include "../40-rows-over-gpus/rows.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "bands.cuh"
#include "../40-rows-over-gpus/upload.cuh"
#include "../41-balanced-rows/split.cuh"
#include "../40-rows-over-gpus/split_report.cuh"
#include "../40-rows-over-gpus/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
