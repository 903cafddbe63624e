/*
 * Stage p09, path regeneration: persistent threads that regenerate their paths (seed 002,
 * "persistent threads", thread regeneration).
 *
 * In p08 a thread owns one path: when its path ends after one segment it idles until the
 * longest path of its warp has ended, and the warp holds its slot on the SM meanwhile. Here the
 * grid is just large enough to fill the GPU once, every thread stays resident for the whole
 * render, and a thread whose path has ended takes the next one from a global counter (an atomic
 * add), so the lanes of a warp keep working until no path is left. One launch renders every
 * sample of every pixel: path q is sample q / pixels of pixel q % pixels. Samples of one pixel
 * may now be added by different threads at the same time: the sums are added with atomics,
 * which integer sums allow in any order (SPEC-PATH-TRACING.md section 4).
 *
 * Builds on p08-megakernel.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "path.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "grid.cuh"
#include "host.cuh"
