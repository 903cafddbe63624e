/*
 * A bounding volume hierarchy over a scene's spheres that finds exactly what SPEC.md's loops over
 * every sphere find (spec_trace.h: spec_closest_hit, spec_shadow), for scenes of any size. A part
 * of spec_trace.h, which includes it after those loops: include spec_trace.h, not this file.
 *
 * Exactness rests on two rules. The nearest hit is the smallest t and, among equal t, the sphere
 * first in file order, whatever order the hierarchy meets the spheres in: a candidate wins on
 * (t, index). And a box is skipped only when no sphere inside it can pass spec_intersect's
 * rounded test: spec_intersect may report a hit on a ray that misses a sphere by a little (its
 * discriminant is rounded), by at most about 1e-3 of the distance from the ray's origin to the
 * sphere (SPEC_BVH_REACH's comment), so each box is widened, for each ray, by more than that
 * before the ray is tested against it. Nothing here depends on the scene's scale; the widening is
 * the price of exactness, and it is small: on 100,000 spheres, widening by 0 (which loses hits)
 * would make stage 22's kernel 7% faster.
 *
 * Plain C for the CPU reference, the GPU ray counter and the stages (nvcc compiles it for the
 * device too). The hierarchy is built on the host by common/bvh.c.
 */
#ifndef SPEC_BVH_H
#define SPEC_BVH_H

#ifndef SPEC_TRACE_H
#error "include spec_trace.h, which includes spec_bvh.h"
#endif

/* How far outside a sphere a ray may pass and still be reported a hit, as a fraction of the
 * distance D from its origin to the sphere's centre. spec_intersect decides on the sign of its
 * rounded b*b - 4ac; with the dot products' rounding (3 eps each, eps = 2^-24) that sign can be
 * positive only if the centre lies within h of the ray's line, where
 *     h^2 <= r^2 (1 + 6 eps) + 15 eps D^2,   so   h <= r (1 + 3 eps) + 9.5e-4 D,
 * and the rounded root puts the hit point a few eps D further along the ray. The test below
 * widens a box by SPEC_BVH_REACH times twice the largest per-axis distance from the origin to
 * the box, which is at least 1.15 D for every sphere inside: 1.38e-3 D, 45% more than the bound.
 * (tests/test_bvh.c, random rays: a widening of 2e-4 times that distance loses hits, 6e-4 keeps
 * them all.) */
#ifndef SPEC_BVH_REACH
#define SPEC_BVH_REACH 1.2e-3f
#endif
/* And by this fraction of the box's largest coordinate, for the rounding of centre +- radius. */
#define SPEC_BVH_ROUNDING 1e-6f
/* A leaf holds at most this many spheres; the tree is balanced, so its depth is at most
 * log2(100,000 / 1) + 1 < 18 and a stack of SPEC_BVH_STACK nodes is always enough. */
#define SPEC_BVH_LEAF_SPHERES 4
#define SPEC_BVH_STACK 64

struct spec_bvh_node {
    struct spec_vec3 lo, hi; /* the box of its spheres: every centre - radius, centre + radius */
    int first;               /* a leaf: its first entry of order[]; else: its left child */
    int count;               /* a leaf: its spheres (1 or more); 0: an inner node, whose right
                                child is first + 1 */
};

struct spec_bvh {
    const struct spec_bvh_node *nodes; /* nodes[0] is the root */
    int node_count;
    const int *order; /* the spheres' indices, leaf after leaf */
};

/* The smaller and the larger of two floats, a NaN dropped (IEEE minNum and maxNum, as CUDA's
 * fminf and fmaxf; written out because a C compiler calls libm's fminf rather than inline it). */
SPEC_FN float spec_min_num(float a, float b)
{
    return (a < b || b != b) ? a : b;
}

SPEC_FN float spec_max_num(float a, float b)
{
    return (a > b || b != b) ? a : b;
}

/* Where a ray from o enters the node's box, widened as SPEC_BVH_REACH says, or INFINITY when
 * it cannot meet a sphere inside before t_max. inverse is 1 / d per component (an infinity for a
 * 0). A NaN (0 times an infinity, for a ray in the plane of a side; overflowed coordinates)
 * leaves that axis unbounded and the node kept: it is never lost (an entry that is NaN is
 * returned as -INFINITY, before every other). */
SPEC_FN float spec_bvh_entry(const struct spec_bvh_node *node, struct spec_vec3 o,
                             struct spec_vec3 inverse, float t_max)
{
    float far = spec_max_num(
        spec_max_num(spec_max_num(fabsf(o.x - node->lo.x), fabsf(o.x - node->hi.x)),
                     spec_max_num(fabsf(o.y - node->lo.y), fabsf(o.y - node->hi.y))),
        spec_max_num(fabsf(o.z - node->lo.z), fabsf(o.z - node->hi.z)));
    float size = spec_max_num(
        spec_max_num(spec_max_num(fabsf(node->lo.x), fabsf(node->hi.x)),
                     spec_max_num(fabsf(node->lo.y), fabsf(node->hi.y))),
        spec_max_num(fabsf(node->lo.z), fabsf(node->hi.z)));
    /* far is the largest distance along one axis; the distance itself is at most 2 far. */
    float margin = SPEC_BVH_REACH * 2.0f * far + SPEC_BVH_ROUNDING * size;
    float ax = (node->lo.x - margin - o.x) * inverse.x, bx = (node->hi.x + margin - o.x) * inverse.x;
    float ay = (node->lo.y - margin - o.y) * inverse.y, by = (node->hi.y + margin - o.y) * inverse.y;
    float az = (node->lo.z - margin - o.z) * inverse.z, bz = (node->hi.z + margin - o.z) * inverse.z;
    float enter = spec_max_num(spec_max_num(spec_min_num(ax, bx), spec_min_num(ay, by)),
                               spec_min_num(az, bz));
    float leave = spec_min_num(spec_min_num(spec_max_num(ax, bx), spec_max_num(ay, by)),
                               spec_max_num(az, bz));
    if (enter > leave || leave < 0.0f || enter > t_max)
        return INFINITY;
    return enter == enter ? enter : -INFINITY;
}

/* Whether a ray from o may meet a sphere inside the node's box before t_max: 0 only when it
 * cannot (spec_bvh_entry). */
SPEC_FN int spec_bvh_may_hit(const struct spec_bvh_node *node, struct spec_vec3 o,
                             struct spec_vec3 inverse, float t_max)
{
    return spec_bvh_entry(node, o, inverse, t_max) != INFINITY;
}

SPEC_FN struct spec_vec3 spec_bvh_inverse(struct spec_vec3 d)
{
    return spec_v3(1.0f / d.x, 1.0f / d.y, 1.0f / d.z);
}

/* spec_closest_hit's answer (SPEC.md section 2: 0 <= t < 100, the first sphere in file order
 * wins a tie), through the hierarchy. */
SPEC_FN int spec_bvh_closest_hit(const struct spec_world *world, const struct spec_bvh *bvh,
                                 struct spec_vec3 origin, struct spec_vec3 direction,
                                 float *t_hit)
{
    float closest = SPEC_FAR_PLANE;
    int hit = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!spec_bvh_may_hit(node, origin, inverse, closest))
            continue;
        if (node->count == 0) {
            stack[top++] = node->first + 1;
            stack[top++] = node->first;
            continue;
        }
        for (int k = 0; k < node->count; ++k) {
            int s = bvh->order[node->first + k];
            float t;
            if (spec_intersect(origin, direction, &world->spheres[s], &t) && t >= 0.0f &&
                (t < closest || (t == closest && hit >= 0 && s < hit))) {
                closest = t;
                hit = s;
            }
        }
    }
    *t_hit = closest;
    return hit;
}

/* spec_shadow's answer through the hierarchy: any sphere with t > SPEC_SHADOW_EPSILON (there
 * is no far limit) shadows, so the first one found ends the search. */
SPEC_FN float spec_bvh_shadow(const struct spec_world *world, const struct spec_bvh *bvh,
                              struct spec_vec3 origin, struct spec_vec3 direction)
{
    struct spec_vec3 inverse = spec_bvh_inverse(direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!spec_bvh_may_hit(node, origin, inverse, INFINITY))
            continue;
        if (node->count == 0) {
            stack[top++] = node->first + 1;
            stack[top++] = node->first;
            continue;
        }
        for (int k = 0; k < node->count; ++k) {
            float t;
            if (spec_intersect(origin, direction, &world->spheres[bvh->order[node->first + k]], &t) &&
                t > SPEC_SHADOW_EPSILON)
                return SPEC_SHADOW_FACTOR;
        }
    }
    return 1.0f;
}

#endif
