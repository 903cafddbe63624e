/*
 * Stage 21a, streamed PNG: the file is written while the frame renders.
 *
 * With --output frame.png, stage 21 encodes the PNG once the whole frame is on the host (on every
 * core: row chunks deflated apart, common/image/png_encode.c), and the user waits for that after
 * the render. But the frame reaches the host in 16 bands, each copied while the next renders: here
 * the encoder starts before the first band (png_stream_start(), its threads waiting), and as each
 * band's copy ends, a host function (cudaLaunchHostFunc, in a stream of its own that waits for the
 * copy's event, so that no copy waits for it) tells the encoder that the band's rows are there;
 * threads deflate them while the GPU renders and copies the next bands. The chunks of the PNG
 * follow the bands (each band one or more chunks, png_stream_chunks_of_band()). Once the last copy
 * is done, the calling thread deflates what is left beside them, the chunks are assembled into the
 * file as png_encode() assembles its own (png_assemble()), and the file is written in one write,
 * before the device memory is freed.
 *
 * Without --output, or with a .ppm, nothing of this runs: the stage is stage 21, the same kernel,
 * copies and phases, and a PPM is written as stage 21 writes it. The kernel is stage 21's: the
 * image keeps its bits (the PNG's bytes differ from stage 21's, since its chunks do).
 *
 * Builds on 21-persistent-rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "image/png_encode.h"
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
#include "../21-persistent-rows/setup.cuh"
#include "../21-persistent-rows/kernel.cuh"
#include "frame.cuh"
#include "../13-steady-state/build_tree.cuh"
#include "bands.cuh"
#include "../19-global-sphere-loads/upload.cuh"
#include "../13-steady-state/host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 8,
    0, /* no --rays-per-thread */
    BLOCK_THREADS_MAX, /* __launch_bounds__: --block up to 256 threads */
};
