/*
 * Stage p05, SoA samples: samples as a structure of arrays too (seed 001, "coalescing samples").
 *
 * The colour and the attenuation of a path get an array each, so the scatter kernel's loads are
 * coalesced like p04's rays, and the host, which only needs the colours, copies half the bytes
 * each frame.
 *
 * Builds on p04-soa-rays-hits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p01-base/config.cuh"
#include "../p04-soa-rays-hits/rays.cuh"
#include "samples.cuh"
#include "paths.cuh"
#include "../p02-no-device-malloc/scene.cuh"
#include "camera.cuh"
#include "../p04-soa-rays-hits/intersect.cuh"
#include "scatter.cuh"
#include "../p02-no-device-malloc/launch.cuh"
#include "record.cuh"
#include "../p01-base/bench.cuh"
#include "host.cuh"
