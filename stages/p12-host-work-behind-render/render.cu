/*
 * Stage p12, host work behind the render: the kernels are launched before the host maps,
 * touches and registers the image's pages, so the CPU does that work while the GPU renders.
 *
 * In p11 the host prepares the image's memory first and launches the render after it, though
 * nothing on the GPU needs that memory before the copy back. A launch returns at once; so here
 * the order is device allocation, upload, launch, and only then the host's pages, while the
 * kernels run; the event that ends the render loop is waited for after them. The kernel phase,
 * by the CPU's clock, now spans both: the longer of the two, not their sum. The host's steps are
 * reported as metrics of their own (`host_map`, `host_touch`, `host_register`), not as parts of
 * a phase, since their time is inside the kernel phase.
 *
 * Builds on p11-registered-host-pages.
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
