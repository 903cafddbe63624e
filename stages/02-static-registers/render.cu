/*
 * Stage 02, static clean-up: the base, read again with the register count in mind.
 *
 * The radius is squared by a multiplication, not by pow(): pow(float, int) promotes to double,
 * and double precision is a long library routine on a GPU, run for every sphere of every ray.
 * The closest hit is kept in one float while looping (no per-thread distance array, so no stack
 * frame and no sphere limit of its own), the shadow loops stop at the first blocker, the
 * intersection computes its square root and 2a once and picks its root with one test, spheres
 * are passed by pointer instead of copied, the camera is read once, the lighting terms are
 * worked out before the secondary rays, and what does not change is const. Only redundant work
 * goes: every pixel keeps its bits (README.md has the argument for the square).
 *
 * Builds on 01-base.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../01-base/rt_math.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "../01-base/host.cuh"

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    16, 16,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
