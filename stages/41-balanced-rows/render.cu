/*
 * Stage 41, rows sized from the last frame: the GPUs' slices of rows re-split before every frame
 * after the first, from each GPU's time on the frame before, so that the GPUs end together.
 *
 * Stage 40 gives every GPU as many rows as the next, but rows do not cost the same (a row of sky
 * against a row of spheres), and the frame waits for the GPU that ends last. The steady frames of
 * --frames N tell the stage what each GPU's rows cost: each GPU's span on its own events, from
 * the start of its setup to the end of its last copy. Before the next frame the rows are
 * re-split: the cost taken as uniform within each GPU's last slice, each boundary moves to where
 * the cost above it reaches its GPU's share of the whole, in whole tile rows, so that every GPU
 * still bins only its own tiles. The first frame is stage 40's even split; so is a run of one
 * frame. A GPU's device frame, bins and tables are the whole image's: a slice moves with no new
 * allocation, and each GPU's setup bins its new rows' tiles before its bands.
 *
 * The image keeps its bits: every pixel is stage 21's render_pixel, with the same bins, tables and
 * scene, on whichever GPU renders it, in whichever frame; only who renders which row has changed.
 *
 * Builds on 40-rows-over-gpus.
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
#include "../40-rows-over-gpus/setup.cuh"
#include "../21-persistent-rows/kernel.cuh"
#include "../40-rows-over-gpus/frame.cuh"
#include "../40-rows-over-gpus/rows.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../40-rows-over-gpus/bands.cuh"
#include "../40-rows-over-gpus/upload.cuh"
#include "split.cuh"
#include "../40-rows-over-gpus/split_report.cuh"
#include "../40-rows-over-gpus/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
