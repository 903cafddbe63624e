/*
 * Stage 07a, branch-free intersection (a side stage): the root choice as one expression.
 *
 * The study's src7Divergence (its Figure 5): has_intersection picks the nearest positive root of
 * the ray-sphere equation with a single arithmetic expression of 0/1 factors instead of a
 * conditional, hoping to reduce control divergence. Multiplying a finite float by 0 or 1 and
 * adding zeros is exact, so the picture keeps its bits.
 *
 * Builds on 07-shared-spheres.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "intersect.cuh"
#include "../04-float3/trace.cuh"
#include "../07-shared-spheres/kernel.cuh"
#include "../07-shared-spheres/host.cuh"

extern "C" const struct stage_info stage_info = {
    (int)((48 * 1024) / sizeof(Sphere)), /* dynamic shared memory without opting in */
    "48 KiB of shared memory per block",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
