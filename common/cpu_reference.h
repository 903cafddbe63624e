/* The CPU reference renderer: SPEC.md's arithmetic (spec_trace.h) on every core, in plain C. */
#ifndef CPU_REFERENCE_H
#define CPU_REFERENCE_H

#include "image.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Renders scene at width x height into image (allocated by the caller, that size) with
 * threads threads (0: one per core). Returns the number of rays traced. */
unsigned long long cpu_reference_render(const struct scene *scene, int width, int height,
                                        int threads, struct image *image);

/* One pixel: the float colour the frame buffer of a stage holds. */
struct spec_vec3 cpu_reference_pixel(const struct scene *scene, int width, int height, int i,
                                     int j);

#ifdef __cplusplus
}
#endif

#endif
