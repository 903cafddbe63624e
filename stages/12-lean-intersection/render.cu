/*
 * Stage 12, a lean intersection: fewer instructions per ray and sphere, the same bits.
 *
 * The test of a ray against a sphere runs billions of times a frame, so every instruction in it
 * counts. What does not depend on the ray is now worked out once per sphere, on the host: the
 * radius squared, and, for primary rays (whose origin is always the camera), the vector from the
 * sphere to the camera and k = oc.oc - r^2. They are packed as float4 in constant memory, one
 * aligned 16-byte load each. What does not depend on the sphere, a = d.d, is worked out once per
 * ray. And the quadratic is solved with half of b: b = 2 (d.oc), b^2 - 4ak = 4 ((d.oc)^2 - ak), and
 * the factors 2 and 4 cancel in t = (-b -+ sqrt(disc)) / 2a. Multiplying by a power of two is
 * exact in binary floating point (short of overflow and underflow), so every rounding is the one
 * SPEC.md's formula makes: the image keeps its bits (SPEC.md section 2, "What a stage may
 * change").
 *
 * Builds on 11-constant-scene.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "raytrace/rt_stage.h"

#include "raytrace/rt_math.cuh"
#include "constants.cuh"
#include "intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "host.cuh"

extern "C" const struct stage_info stage_info = {
    MAX_CONSTANT_SPHERES,
    "its array of spheres in constant memory",
    32, 32,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
