/*
 * Stage 04, float3: CUDA's own 3-vector instead of the hand-made Vec3f.
 *
 * float3 and make_float3 come with CUDA; small inline helpers do the arithmetic (in SPEC.md's
 * order, so the picture keeps its bits) and sqrtf, fmaxf and fminf replace sqrt and the
 * hand-written f_max and f_min. A side effect the study met: the frame buffer is now plain
 * malloc memory that nothing initialises (the base's zero-fill loop goes), so the operating
 * system maps its pages only when first touched, which is during the copies, not during the
 * allocation.
 *
 * Builds on 03-block-size.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
