/*
 * Stage p04, SoA rays and hits: rays and hits as structures of arrays (seed 001, "coalescing
 * rays and hits").
 *
 * Stage p03 kept each ray as one 28-byte struct, so the 32 threads of a warp reading their
 * origins touched 32 places 28 bytes apart; here each field has its own array, and the warp's
 * 32 origins are 384 contiguous bytes, its 32 hit distances 128. The kernels still work on a
 * struct ray and a struct hit in registers; only loading and storing them changes.
 *
 * Builds on p03-structs-in-registers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p01-base/config.cuh"
#include "rays.cuh"
#include "../p01-base/samples.cuh"
#include "paths.cuh"
#include "../p02-no-device-malloc/scene.cuh"
#include "camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "../p02-no-device-malloc/launch.cuh"
#include "record.cuh"
#include "../p01-base/bench.cuh"
#include "../p01-base/host.cuh"
