/* The path-tracing track's CPU reference: pt_math.h's paths on every core, in plain C. */
#ifndef PT_REFERENCE_H
#define PT_REFERENCE_H

#include "pathtrace/pt_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds `samples` samples of every pixel of world (width x height) into sums (width * height * 3,
 * zeroed by the caller) with `threads` threads (0: one per core), each sample made by
 * `estimator` (enum pt_estimator, SPEC.md section 6). Returns the rays traced, shadow rays
 * included. */
unsigned long long pt_reference_render(const struct pt_world *world, int estimator, int samples,
                                       int threads, unsigned long long *sums);

#ifdef __cplusplus
}
#endif

#endif
