/*
 * Stage 10, overlap: the frame in bands on several streams, so one band is copied back while
 * the next ones are rendered.
 *
 * Until now the copy back started only when the whole kernel had finished, and the GPU's copy
 * engine sat idle while the SMs worked (and the SMs while it copied). The frame is now cut into
 * BAND_COUNT bands of rows (16). Each band gets its own kernel launch and its own asynchronous
 * copy on one of STREAM_COUNT streams (4, band b on stream b % 4); work in one stream runs in
 * order, work in different streams may run at the same time. So band b's copy overlaps the
 * kernels of bands b + 1, b + 2, ..., and only the last band's copy is left after the last
 * kernel. The study named this as its future work. The kernel phase now ends when the last
 * band's kernel ends (the copies hidden behind it are in it), and the copy phase is what is left
 * of the copies.
 *
 * Builds on 09-hugepage-host-memory.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "../04-float3/intersect.cuh"
#include "../04-float3/trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
