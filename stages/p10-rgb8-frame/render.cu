/*
 * Stage p10, the 8-bit frame: the pixels are resolved on the device, and only the image comes
 * back.
 *
 * p09 copies every pixel's three 64-bit sums back (24 bytes a pixel) and the host turns them into
 * 8-bit channels when it writes the image. Here a second kernel does that on the GPU, each thread
 * one channel with pt_pixel_channel, the CPU reference's function (SPEC-PATH-TRACING.md section 4:
 * a double division and a float square root, correctly rounded on both sides, so the same bits),
 * and the copy back is the 8-bit image: 3 bytes a pixel, 8 times fewer. The resolve runs after the
 * last sample and is timed with the render loop; the sums never leave the device.
 *
 * Builds on p09-path-regeneration.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "../p09-path-regeneration/path.cuh"
#include "../p09-path-regeneration/trace.cuh"
#include "../p09-path-regeneration/kernel.cuh"
#include "resolve.cuh"
#include "paths.cuh"
#include "../p08-megakernel/scene.cuh"
#include "../p09-path-regeneration/grid.cuh"
#include "host.cuh"
