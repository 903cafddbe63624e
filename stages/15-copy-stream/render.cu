/*
 * Stage 15, a stream for the copies: no kernel waits for another band's copy.
 *
 * Since stage 10, band b's kernel and then its copy go to stream b % 4, and a stream runs its
 * work in order: band b + 4's kernel cannot start before band b's copy has ended. While the
 * kernels were slower than the copies that cost nothing. Since stage 14 a band renders in less
 * time than its 12.6 MB take over PCIe, so the copies, one after another on the one copy engine
 * that moves data to the host, set the pace of the kernels too. Here the kernels keep their four
 * streams and every copy goes to one stream of its own, where it waits (cudaStreamWaitEvent)
 * for its band's event only: the kernels run back to back, the copies follow.
 *
 * Kept from earlier stages: each ray tests only the spheres of its tile's or light cell's bin
 * (stage 14; the README of 14-sphere-binning, "Why the image cannot change", says why the bits
 * stay), and the intersection solves the quadratic with half of b (stage 12: the factors 2 and 4
 * it drops are powers of two, which scale a float exactly).
 *
 * Builds on 14-sphere-binning.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../14-sphere-binning/intersect.cuh"
#include "../14-sphere-binning/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "../14-sphere-binning/kernel.cuh"
#include "frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "bands.cuh"
#include "../13-steady-state/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
