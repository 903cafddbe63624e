/* The CPU reference renderer: SPEC.md's arithmetic (spec_trace.h) on every core, in plain C.
 * Scenes of more than CPU_REFERENCE_BVH_FROM spheres are searched through a bounding volume
 * hierarchy (bvh.h), which finds exactly what the loops over every sphere find; the loops stay
 * the definition (cpu_reference_render_every_sphere), and the tests hold the two together. */
#ifndef CPU_REFERENCE_H
#define CPU_REFERENCE_H

#include "image/image.h"
#include "raytrace/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CPU_REFERENCE_BVH_FROM 64

/* Renders scene at width x height into image (allocated by the caller, that size) with
 * threads threads (0: one per core). Returns the number of rays traced. */
unsigned long long cpu_reference_render(const struct scene *scene, int width, int height,
                                        int threads, struct image *image);

/* The same, every ray tested against every sphere, whatever the scene's size. */
unsigned long long cpu_reference_render_every_sphere(const struct scene *scene, int width,
                                                     int height, int threads, struct image *image);

/* One pixel: the float colour the frame buffer of a stage holds. */
struct spec_vec3 cpu_reference_pixel(const struct scene *scene, int width, int height, int i,
                                     int j);

#ifdef __cplusplus
}
#endif

#endif
