/*
 * Stage 02a, the study's image file: the frame written as text, one line a pixel, through a
 * buffer of lines.
 *
 * Every stage of this course converts the frame to 8-bit bytes and writes them with one write(), a
 * binary PPM or a PNG encoded in memory first. The study's base wrote a text PPM ("P3"): each
 * pixel became a std::string "R G B", pushed onto a std::vector, and once every pixel had its
 * string the vector was copied into the file's std::ofstream, a line at a time. Its stage 2 took
 * the vector away and wrote each pixel's numbers straight into the stream. This stage is stage 02
 * with the study's base way back for --output FILE.ppm (text_image.cuh; built with
 * -DTEXT_IMAGE_BUFFERED=0, the study's stage 2 way), so that both of the study's ways can be timed
 * beside stage 02's one write of the same frame. A .png is written as stage 02 writes it.
 *
 * The kernel, the copies and every timed phase are stage 02's. The channels become numbers by
 * SPEC.md's output rule, the values the binary file holds, so the image keeps its bits: only the
 * file's format and the time to write it change.
 *
 * Builds on 02-static-registers.
 */
#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../01-base/rt_math.cuh"
#include "../02-static-registers/intersect.cuh"
#include "../02-static-registers/trace.cuh"
#include "../02-static-registers/kernel.cuh"
#include "text_image.cuh"
#include "../01-base/host.cuh"

extern "C" const struct stage_info stage_info = {
    SCENE_MAX_SPHERES,
    "the scene format's limit",
    16, 16,
    0, /* no --rays-per-thread */
    0, /* no __launch_bounds__: --block up to 1024 threads */
};
