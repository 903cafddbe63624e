/* The path tracer's scenes in a bounding volume hierarchy: the main track's (common/raytrace/bvh.c,
 * built
 * on the host by the surface area heuristic) over the path tracer's spheres. pt_closest_hit
 * walks it when a world carries one (pt_math.h). */
#ifndef PT_BVH_H
#define PT_BVH_H

#include "raytrace/bvh.h"
#include "raytrace/cpu_reference.h" /* CPU_REFERENCE_BVH_FROM */
#include "pathtrace/pt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scenes of more spheres than this are searched through a hierarchy by the CPU reference and
 * the GPU ray counter: the main track's threshold. */
#define PT_BVH_FROM CPU_REFERENCE_BVH_FROM

/* Builds the hierarchy over `count` spheres (bvh_build's). 0, or -1 when memory runs out. */
int pt_bvh_build(const struct pt_sphere *spheres, int count, struct bvh *bvh);

#ifdef __cplusplus
}
#endif

#endif
