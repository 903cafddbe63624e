/*
 * Stage 40, rows over GPUs: the frame's rows split over every GPU of the node, each GPU rendering
 * its share and copying it back over its own link.
 *
 * Stage 21's steady frame is at one GPU's floor: not its kernel, which ends well before, but the
 * copy of the frame, 3 bytes a pixel over one PCIe link. Only more links go under it, and each
 * GPU brings its own. So GPU g of N renders rows height * g / N up to height * (g + 1) / N
 * (--gpus N, default every GPU from --device on), with its own of everything stage 21's frame
 * held: the scene uploaded to its global and constant memory, the bins and image-plane tables of
 * its setup (the tile bins of its own rows only), its streams, events and bands (its rows cut
 * into 16), and a device frame from which it copies its bands into its own rows of the one pinned
 * host frame. One host thread drives them all: the scene's copies are asynchronous, so no GPU
 * waits for another's upload, and the bands are launched band b of every GPU before band b + 1
 * of any, so that every GPU starts at once.
 * Written for any number of GPUs; with one (--gpus 1), stage 21's frame, bands and timing.
 *
 * The image keeps its bits: every pixel is stage 21's render_pixel with the same tables, bins
 * and scene, on whichever GPU renders it; only who renders which row has changed.
 *
 * Builds on 21-persistent-rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
#include "setup.cuh"
#include "../21-persistent-rows/kernel.cuh"
#include "frame.cuh"
#include "rows.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "bands.cuh"
#include "upload.cuh"
#include "split.cuh"
#include "split_report.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
