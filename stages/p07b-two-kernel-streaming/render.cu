/*
 * Side stage p07b, two-kernel streaming: the streams of p07a with seed 002's two kernels, one that
 * regenerates paths and one that extends them (its StreamingMK, "Compaction").
 *
 * p07a extends a stream's paths in two kernels, p07's intersection and scatter, and the hit of
 * every path goes to global memory between them: with the regeneration, three launches a segment.
 * The seed's device compaction has two: "one for regenerating inactive paths and one for
 * extending the paths". Here the intersection is a device function that the extension kernel
 * calls: a thread loads its path, finds the nearest hit, shades and scatters it, and either adds
 * what the path brought back to its pixel's sums or writes the path to the output stream at the
 * slot an atomicAdd on that stream's count hands out. Between the two kernels only the streams
 * and their counters pass; the hit stays in registers and the hit arrays are gone. The
 * regeneration, the batches enqueued one ahead of the GPU and the word in mapped host memory that
 * says when to stop are p07a's. Every random number still depends on the pixel, the sample and
 * the segment only, and the sums are integers: the image keeps p07a's bits.
 *
 * Its kernel follows a path for one segment only, but the record's kernel benchmark times an
 * intersection and a scatter kernel apart: there is no such pair here, so --record is not taken.
 *
 * Builds on p07a-device-compaction.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p07-constant-scene/config.cuh"
#include "../p07a-device-compaction/rays.cuh"
#include "paths.cuh"
#include "../p07-constant-scene/scene.cuh"
#include "../p07a-device-compaction/camera.cuh"
#include "intersect.cuh"
#include "scatter.cuh"
#include "launch.cuh"
#include "host.cuh"
