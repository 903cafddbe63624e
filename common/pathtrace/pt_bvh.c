/* The path tracer's spheres in the main track's hierarchy (pt_bvh.h). */
#include "pathtrace/pt_bvh.h"

#include <stdlib.h>

int pt_bvh_build(const struct pt_sphere *spheres, int count, struct bvh *bvh)
{
    /* bvh_build reads a sphere's centre and radius only; the colour stays zero. */
    struct spec_sphere *boxes = calloc(count > 0 ? (size_t)count : 1, sizeof *boxes);
    if (!boxes)
        return -1;
    for (int s = 0; s < count; ++s) {
        boxes[s].centre = spheres[s].centre;
        boxes[s].radius = spheres[s].radius;
    }
    int status = bvh_build(boxes, count, bvh);
    free(boxes);
    return status;
}
