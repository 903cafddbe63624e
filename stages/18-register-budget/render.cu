/*
 * Stage 18, a register budget: __launch_bounds__ holds the kernel to 40 registers per thread.
 *
 * The packets of stage 17 cost registers: 48 per thread, where stage 16 needed 38. At 48 a
 * block of 256 threads takes 12,288 of the SM's 65,536 registers, so five blocks fit (40 warps,
 * 62.5% occupancy) where six did (48 warps, 75%). __launch_bounds__(256, 6) tells the compiler
 * that blocks have at most 256 threads and that six of them must fit on an SM: it then keeps
 * to 65,536 / (6 x 256) = 42 registers, 40 as allocated, and keeps what does not fit in
 * registers in local memory (spills, in the resource report). Whether the spills cost less
 * than the warps they bring is what the measurement decides; stage 07f's cap of 32 lost. The
 * launch then refuses blocks of more than 256 threads (--block 32x32 fails with an invalid
 * argument).
 *
 * Kept from earlier stages: each ray tests only the spheres of a bin, its tile's or light
 * cell's (stage 14) or its warp's reflection packet (stage 17), which keeps the bits (the README
 * of 14-sphere-binning, "Why the image cannot change"); the intersection solves the quadratic
 * with half of b (stage 12: the factors 2 and 4 it drops are powers of two, which scale a float
 * exactly).
 *
 * Builds on 17-warp-packets.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../14-sphere-binning/constants.cuh"
#include "../14-sphere-binning/cones.cuh"
#include "../14-sphere-binning/intersect.cuh"
#include "raytrace/the-kernel-to-the-floor/packet.cuh"
#include "raytrace/the-kernel-to-the-floor/packet_bits.cuh"
#include "raytrace/the-kernel-to-the-floor/closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "kernel.cuh"
#include "../15-copy-stream/frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../13-steady-state/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
