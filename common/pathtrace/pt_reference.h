/* The path-tracing track's CPU reference: pt_math.h's paths on every core, in plain C. */
#ifndef PT_REFERENCE_H
#define PT_REFERENCE_H

#include <stddef.h>

#include "pathtrace/pt_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What pt_reference_render returns when the estimator's buffers cannot be allocated. */
#define PT_REFERENCE_OUT_OF_MEMORY (~0ULL)

/* Adds `samples` samples of every pixel of world (width x height) into sums (width * height * 3,
 * zeroed by the caller) with `threads` threads (0: one per core), each sample made by `estimator`
 * (enum pt_estimator, or PT_ESTIMATOR_RESERVOIRS of pathtrace/pt_reservoirs.h: SPEC.md section 6).
 * A world of more than PT_BVH_FROM spheres without a hierarchy is searched through one built here
 * (pt_bvh.h; the same image, sooner). Returns the rays traced, shadow rays included, or
 * PT_REFERENCE_OUT_OF_MEMORY (nothing rendered) when the host memory of pt_reference_pixel_bytes()
 * per pixel cannot be had. */
unsigned long long pt_reference_render(const struct pt_world *world, int estimator, int samples,
                                       int threads, unsigned long long *sums);

/* The bytes per pixel that pt_reference_render allocates for `estimator` beside the caller's
 * sums: reservoirs keeps two frames' camera-ray hits and two reservoir buffers (136 bytes); the
 * others keep nothing (0). */
size_t pt_reference_pixel_bytes(int estimator);

#ifdef __cplusplus
}
#endif

#endif
