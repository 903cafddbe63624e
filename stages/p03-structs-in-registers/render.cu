/*
 * Stage p03, structs in registers: each global struct read once into registers (seed 001,
 * "don't use references").
 *
 * Stage p02's kernels worked through pointers to their elements of rays, hits and samples (C's
 * form of the C++ references of the seed): every use is a global load, and every store through
 * one pointer forces the next read through another to be loaded again, because the compiler
 * cannot prove that they do not overlap. Here each kernel copies its elements into local
 * structs, works on those, and stores each once at the end.
 *
 * Builds on p02-no-device-malloc.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p01-base/config.cuh"
#include "../p01-base/rays.cuh"
#include "../p01-base/samples.cuh"
#include "../p02-no-device-malloc/paths.cuh"
#include "../p02-no-device-malloc/scene.cuh"
#include "camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "../p02-no-device-malloc/launch.cuh"
#include "../p01-base/record.cuh"
#include "../p01-base/bench.cuh"
#include "../p01-base/host.cuh"
