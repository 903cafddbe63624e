/*
 * Stage p06, device accumulation: the pixel sums kept on the GPU, copied once at the end (seed
 * 001, "only copy the colours once").
 *
 * Until p05 every frame ended with a copy of its colours to the host and a host loop adding
 * them, while the GPU waited; here a small kernel adds each frame's colours to sums in device
 * memory, the frames follow one another without the host in between, and the sums cross the bus
 * once. The sums are integers (SPEC-PATH-TRACING.md section 4), so adding them on the GPU
 * gives the bits the host's loop gave.
 *
 * Builds on p05-soa-samples.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p01-base/config.cuh"
#include "../p04-soa-rays-hits/rays.cuh"
#include "../p05-soa-samples/samples.cuh"
#include "paths.cuh"
#include "../p02-no-device-malloc/scene.cuh"
#include "../p05-soa-samples/camera.cuh"
#include "../p04-soa-rays-hits/intersect.cuh"
#include "../p05-soa-samples/scatter.cuh"
#include "accumulate.cuh"
#include "../p02-no-device-malloc/launch.cuh"
#include "../p05-soa-samples/record.cuh"
#include "../p01-base/bench.cuh"
#include "host.cuh"
