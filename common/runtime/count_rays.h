/* The rays an image needs, for the report's rays per second: counted on the GPU with the
 * reference arithmetic after the timed phases (common/runtime/count_rays.cu), so no stage has to
 * count. */
#ifndef COUNT_RAYS_H
#define COUNT_RAYS_H

#include "pathtrace/pt_scene.h"
#include "raytrace/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The main track: the rays SPEC.md traces for the scene at width x height. */
unsigned long long gpu_count_rays(const struct scene *scene, int width, int height);

/* The path-tracing track: the rays of `samples` samples per pixel of the world with an estimator
 * (SPEC-PATH-TRACING.md section 6). */
unsigned long long pt_gpu_count_rays(const struct pt_world *world, int samples, int estimator);

#ifdef __cplusplus
}
#endif

#endif
