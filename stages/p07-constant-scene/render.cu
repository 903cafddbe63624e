/*
 * Stage p07, constant scene: the spheres and their materials in constant memory (seed 001,
 * "constant memory").
 *
 * Every thread of the intersection kernel reads the same sphere at the same time: from
 * constant memory that is one read broadcast to the warp, through the constant cache, where
 * p06 issued global loads. The scatter kernel reads the sphere and the material its ray hit,
 * which differ between threads: there the constant cache serialises the different addresses of
 * a warp, so this lesson helps one kernel and may cost the other.
 *
 * Builds on p06-device-accumulation.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "../p04-soa-rays-hits/rays.cuh"
#include "../p05-soa-samples/samples.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "../p05-soa-samples/camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "../p06-device-accumulation/accumulate.cuh"
#include "launch.cuh"
#include "../p05-soa-samples/record.cuh"
#include "../p01-base/bench.cuh"
#include "../p06-device-accumulation/host.cuh"
