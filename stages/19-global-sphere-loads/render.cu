/*
 * Stage 19, global sphere loads: a packet's lanes read their spheres from global memory.
 *
 * In packet_bits each lane of a warp tests a different sphere against the warp's packet: lane r
 * reads sphere r. Constant memory serves a warp one address at a time: when its lanes ask for 19
 * different spheres, the read is replayed 19 times, and the profile shows the warps waiting on
 * it (short scoreboard stalls on the lines of packet_may_hit). Global memory serves the 32
 * addresses of a warp together, from the L1 cache once the first warp has loaded them. So the
 * packet test now reads each sphere's centre and grown radius (1.01 r, worked out once on the
 * host, with the kernel's arithmetic) as one 16-byte load from a small array in global memory,
 * through the read-only path (__ldg). Everything that every lane reads at the same address (the
 * bins' spheres, the light, the camera) stays in constant memory, where one read serves the
 * warp. The same operations on the same values: the image keeps its bits.
 *
 * Kept from earlier stages: each ray tests only the spheres of a bin, its tile's or light
 * cell's (stage 14) or its warp's reflection packet (stage 17), which keeps the bits (the README
 * of 14-sphere-binning, "Why the image cannot change"); the intersection solves the quadratic
 * with half of b (stage 12: the factors 2 and 4 it drops are powers of two, which scale a float
 * exactly). Stage 18's budget, __launch_bounds__(256, 6), holds the kernel to
 * 65,536 / (6 x 256) = 42 registers a thread, 40 as allocated, and spills the rest.
 *
 * Builds on 18-register-budget.
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
#include "packet_bits.cuh"
#include "closest.cuh"
#include "../14-sphere-binning/light_cell.cuh"
#include "../14-sphere-binning/trace.cuh"
#include "../14-sphere-binning/bins.cuh"
#include "kernel.cuh"
#include "frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "../15-copy-stream/bands.cuh"
#include "upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
