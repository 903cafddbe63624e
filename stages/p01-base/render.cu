/*
 * Stage p01, base: the path tracer as seed 001 starts it.
 *
 * A host-driven wavefront: for every frame (one sample per pixel), a kernel makes the camera
 * rays, then for every segment one kernel intersects all the paths' rays with the spheres and
 * one scatters them (pt_math.h's materials). Rays, hits and samples are arrays of structs, each
 * read and written through a pointer to its element; after every frame the samples are copied to
 * the host, which adds the frame's colours to the pixel sums. And the scatter kernel, like seed
 * 000's, allocates its per-thread working record with device-side malloc.
 *
 * The first stage of the path-tracing track: it builds on nothing, and every later stage of the
 * track removes one of these habits. SPEC-PATH-TRACING.md fixes the scene, the random numbers
 * and the arithmetic of a path.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "config.cuh"
#include "rays.cuh"
#include "samples.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "launch.cuh"
#include "record.cuh"
#include "bench.cuh"
#include "host.cuh"
