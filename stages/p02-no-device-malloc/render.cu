/*
 * Stage p02, no device malloc: no allocation inside the kernel (seed 000).
 *
 * Stage p01's scatter kernel asked the device heap for its working record with malloc, in every
 * thread, every segment, every frame, and gave it back with free; here the record is a local
 * variable, which lives in registers.
 *
 * Builds on p01-base.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p01-base/config.cuh"
#include "../p01-base/rays.cuh"
#include "../p01-base/samples.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "../p01-base/camera.cuh"
#include "../p01-base/intersect.cuh"
#include "scatter.cuh"
#include "launch.cuh"
#include "../p01-base/record.cuh"
#include "../p01-base/bench.cuh"
#include "../p01-base/host.cuh"
