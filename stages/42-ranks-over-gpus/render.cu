/*
 * Stage 42, ranks over GPUs: one process a GPU, started by a launcher (srun, mpirun,
 * tools/launch-ranks.sh), each rendering the rows stage 40 gave its GPU, the rows gathered to
 * rank 0 by NCCL.
 *
 * Stage 40's one host thread drives every GPU of one node; a node is where it ends. Past it the
 * GPUs belong to other processes on other machines, and the form that scales is one process a
 * GPU, as a cluster starts them: rank r of N (common/runtime/ranks.c reads it from the launcher's
 * environment) opens the GPU of its local rank, renders rows height * r / N up to
 * height * (r + 1) / N with stage 40's everything for one GPU, and sends them from its device
 * frame into the same rows of rank 0's (ncclSend, ncclRecv); rank 0 copies its own rows home as
 * they are rendered, then the others' after the gather, and writes the image. The ranks meet
 * through a file: rank 0 writes the communicator's id there, the others read it (no MPI needed).
 * The gather brings the whole frame back over rank 0's one link, the floor stage 40 went under:
 * on one node this form is slower than stage 40, and it is the one that reaches past a node.
 * The phases are rank 0's; kernel_events is the slowest rank's, reduced over the world.
 * Written for any number of ranks; a world of one (no launcher) is stage 40 on one GPU.
 *
 * The image keeps its bits: every pixel is stage 21's render_pixel with the same tables, bins and
 * scene, on whichever rank renders it; the gather moves bytes and computes nothing.
 *
 * Builds on 40-rows-over-gpus.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nccl.h>

#include "runtime/gpu.h"
#include "runtime/ranks.h"
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
#include "ranks.cuh"
#include "bands.cuh"
#include "../40-rows-over-gpus/upload.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
