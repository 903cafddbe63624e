/*
 * Stage p11, registered host pages: the 8-bit image is copied into page-locked memory.
 *
 * p10's image (3 bytes a pixel) is copied into memory from malloc: pageable, so the driver copies
 * it through a page-locked staging buffer of its own, chunk by chunk, and the first write to each 4
 * KiB page of the destination faults. Here the stage maps the image's memory itself as stage 09 of
 * the main chain does (common/runtime/host_pages.c): anonymous memory advised to use 2 MiB pages,
 * its first touch spread over threads (one a page here), then registered with cudaHostRegister, so
 * the copy is one DMA straight into it. Each step is timed as a part of its phase.
 *
 * Builds on p10-rgb8-frame.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p09-path-regeneration/trace.cuh"
#include "../p09-path-regeneration/kernel.cuh"
#include "../p10-rgb8-frame/resolve.cuh"
#include "../p10-rgb8-frame/paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "host.cuh"
