/*
 * Stage p05a, split channels (a side stage): each channel of a sample its own array.
 *
 * Samples split one step further than p05: each channel of the colour and of the attenuation
 * its own float array (seed 001 tried this, and lost). The loads stay coalesced, but the host now
 * copies three arrays each frame, and adds from three places per pixel.
 *
 * Builds on p05-soa-samples.
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
#include "../p05-soa-samples/camera.cuh"
#include "../p04-soa-rays-hits/intersect.cuh"
#include "../p05-soa-samples/scatter.cuh"
#include "../p02-no-device-malloc/launch.cuh"
#include "record.cuh"
#include "../p01-base/bench.cuh"
#include "host.cuh"
