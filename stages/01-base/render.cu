/*
 * Stage 01, the base: the ray tracer as a competent newcomer first writes it.
 *
 * Its own 3-vector type and functions, the radius squared with <math.h>'s pow() (as the study's
 * base did: pow works in double precision), a per-thread array that keeps the distance to every
 * sphere before the closest is chosen, shadow loops that test every sphere, 16x16 threads per
 * block, and a float RGB frame buffer that is allocated and initialised pixel by pixel on the
 * host and uploaded before the kernel runs. The spheres, the light and the camera sit in global
 * memory. Every phase is timed (common/runtime/stage_main.c prints the report).
 *
 * The first stage of the main track: it builds on nothing, and every later stage changes one
 * thing in it. SPEC.md fixes the scene and the arithmetic that every stage keeps.
 */
#include <math.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#define MAX_SPHERES 512 /* the size of the per-thread distance array */

#include "rt_math.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_SPHERES,
    "its per-thread distance array",
    16, 16,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
