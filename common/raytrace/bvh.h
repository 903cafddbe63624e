/* A bounding volume hierarchy over a scene's spheres, built on the host: what the CPU reference,
 * the GPU ray counter and stage 22 traverse (spec_trace.h, spec_bvh.h). */
#ifndef BVH_H
#define BVH_H

#include "raytrace/spec_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bvh {
    struct spec_bvh_node *nodes; /* nodes[0] is the root; at most 2 * count - 1 of them */
    int node_count;
    int *order; /* the spheres' indices, leaf after leaf */
    int depth;  /* the longest path from the root to a leaf, in nodes */
};

/* Builds the hierarchy top down by the surface area heuristic (bvh.c), down to leaves of
 * SPEC_BVH_LEAF_SPHERES or fewer. Deterministic. 0, or -1 when memory runs out. */
int bvh_build(const struct spec_sphere *spheres, int count, struct bvh *bvh);

void bvh_free(struct bvh *bvh);

/* The hierarchy as spec_trace.h's traversal reads it (pointers into bvh). */
struct spec_bvh bvh_view(const struct bvh *bvh);

#ifdef __cplusplus
}
#endif

#endif
