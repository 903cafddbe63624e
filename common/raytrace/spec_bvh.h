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
 * device too). The hierarchy is built on the host by common/raytrace/bvh.c.
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
 * log2(100,000 / 1) + 1 < 18 and a stack of SPEC_BVH_STACK nodes is always enough. (Another
 * size, -DSPEC_BVH_LEAF_SPHERES=N for bvh.c and its users, gives the same answers: tools/walk-work
 * is built so to count what the size changes.) */
#ifndef SPEC_BVH_LEAF_SPHERES
#define SPEC_BVH_LEAF_SPHERES 4
#endif
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

/* ---- The cone: the same guarantee, its widening moved from the box to the ray ---------------
 *
 * spec_bvh_entry widens every box, for every ray, by a margin worked out from the box's corners:
 * about 50 operations a box. The widening need not be the box's. spec_intersect reports a hit at
 * t only where the point p = o + t d lies within r (1 + 3 eps) + x + a few eps (D + r) of the
 * centre (x: the excess of SPEC_BVH_REACH's comment, from x (2r + x) <= 15 eps D^2; D: origin to
 * centre, at most s + r + x by the triangle inequality, s = t |d| being the distance to p). Solved
 * for x, that is x <= 9.47e-4 s + 7.5 eps r (checked numerically over s/r from 1e-6 to 1e6): an
 * excess proportional to the distance along the ray, plus a little of the radius. So p lies
 * within 9.5e-4 s + 20 eps r + a few eps s of the sphere's box, on every axis. A ray tested
 * against the box widened by slope * t + e (a cone around the ray, in t) therefore keeps every
 * box whose spheres it may be reported to hit, at that very t, when
 *     slope >= 9.5e-4 |d| (SPEC_BVH_CONE_SLOPE: 1.38e-3 |d|, 45% more, as SPEC_BVH_REACH)
 *     e     >= 20 eps r_max + the test's rounding (below): SPEC_BVH_ROUNDING times the box's
 *              largest coordinate (16.8 eps of it, which is at least r_max) plus
 *              SPEC_BVH_CONE_EXTENT times its largest side (2 r_max or more: 335 eps r_max).
 * e does not depend on the ray, so it is added to the stored box once (spec_bvh_cone_widen_box),
 * and the slope is one number a ray (spec_bvh_cone_of_ray). Nothing assumes the origin outside
 * the sphere or before the closest approach: the bound is on the reported point itself (from
 * inside a sphere, the far root; behind the closest approach, either root).
 *
 * Per axis, lo - e - slope t <= o + t d <= hi + e + slope t is, for t >= 0 and d > slope,
 * (lo' - o) / (d + slope) <= t <= (hi' - o) / (d - slope), primed planes widened by e (mirrored
 * for d < -slope). Each bound is plane * scale + shift, with the per-ray scale and shift =
 * -o * scale: one fused multiply-add. Rounding: the scale is 1/(d +- slope) within 2 eps, the
 * shift within eps, the sum (and the product, unfused) within eps; as a displacement along the
 * axis that is at most eps (3 |plane - o| + |o| + |plane|) <= 4 eps (|plane| + |o|), and
 * |o| <= s + |p|, p being near the box: under 8 eps of the box's largest coordinate (with the
 * builder's and the widening's own roundings, 9) plus 4 eps s. Both fit the margins above
 * (16.8 eps of that coordinate; 4.3e-4 s of spare slope).
 *
 * Where |d| <= slope on an axis, both sides of the cone move away from the ray and both planes
 * give a lower bound on t, which would take two bounds and a max. Dropping the axis is safe but
 * costly (the ray becomes a plane: on 100,000 spheres, the 0.5% of primary rays with such an
 * axis tested 3,167 boxes against 250). So, for hits at t <= T (T from t_max and the root's box:
 * spec_bvh_cone_for_walk), such an axis takes a virtual cone of direction +-2k, slope k, whose
 * apex lies T (2k - |d|) / k before the origin: its edges enclose the ray's cone for 0 <= t <= T
 * (the lower edge meets it at T) and its bounds have the usual form. Its half-width at t = 0, at
 * most 2kT, adds 4 eps kT of rounding, covered by the slack (kT at small t, the spare slope near
 * T). Only without a finite T is the axis dropped. Measured (tests/test_bvh.c, 140,000 rays):
 * a tenth of the slope loses 254 rays' answers, 0.3 of it 1, half of it none; no e at all
 * loses none (its margins are for the worst case, which random rays do not reach).
 *
 * The ray's bounds are compared as spec_bvh_entry's are: the box is kept when the interval
 * [max(enter, 0), leave] is not empty and starts at or before t_max, so a sphere whose reported
 * t equals t_max (a tie, decided on the index) is kept too. A NaN bound is dropped (minNum,
 * maxNum): a box is never lost to one. Per box (source level, spec_bvh_cone_entry against
 * spec_bvh_entry; abs, a free operand modifier on the GPU, not counted):
 *                      add/sub  mul  fma  min/max  compare  select  total
 *     spec_bvh_entry      19     8    0     20        4        0      51
 *     cone                 0     0    6      5        2        6      19
 * spec_bvh_entry: 6 sub and 5 max for far, 5 max for size, 2 mul and an add for the margin, 6
 * add/sub of the margin, 6 sub of o, 6 mul, 6 min/max to order each axis, 4 for enter and leave,
 * 3 compares and a NaN test (fused on the GPU: one mul and add become an fma). The cone's
 * selects pick the near and far planes per axis from the sign of enter_scale (a GPU stage can
 * index its loads instead); unfused (CPU, -ffp-contract=off) each fma is a mul and an add: 25.
 */
#define SPEC_BVH_CONE_SLOPE 1.38e-3f
#define SPEC_BVH_CONE_EXTENT 1e-5f
/* Below this d.d the products in spec_intersect leave the normal range, where none of the above
 * holds: every axis is dropped and every box kept. */
#define SPEC_BVH_CONE_SMALLEST_DD 1e-30f

/* Fused on the device whatever -fmad says (the box test need not match SPEC.md's bits); the
 * host computes it unfused, as -ffp-contract=off asks: the bound above covers both. */
#ifdef __CUDA_ARCH__
#define SPEC_BVH_FMA(a, b, c) __fmaf_rn(a, b, c)
#else
#define SPEC_BVH_FMA(a, b, c) ((a) * (b) + (c))
#endif

struct spec_bvh_cone {
    float slope;            /* k, in t: SPEC_BVH_CONE_SLOPE |d|; INFINITY keeps every box */
    float enter_scale[3];   /* 1/(d + k), or 1/(d - k) for d < -k (negative: the ray enters
                               through hi, else through lo); 0 for a dropped axis */
    float enter_shift[3];   /* -o * enter_scale; -INFINITY for a dropped axis (enter -INFINITY) */
    float leave_scale[3];   /* 1/(d - k), or 1/(d + k) for d < -k; 0 for a dropped axis */
    float leave_shift[3];   /* -o * leave_scale; +INFINITY for a dropped axis (leave +INFINITY) */
};

/* The cone of any slope (the tests weaken it to show that the test can fail), for hits at t up
 * to t_bound (INFINITY: any t; then an axis with |d| <= k is dropped, see above). */
SPEC_FN struct spec_bvh_cone spec_bvh_cone_of_ray_sloped(struct spec_vec3 origin,
                                                          struct spec_vec3 direction, float slope,
                                                          float t_bound)
{
    struct spec_bvh_cone cone;
    float dd = spec_dot(direction, direction);
    /* !(>=): a NaN or too small d.d drops every axis; an infinite one does so by itself. */
    float k = dd >= SPEC_BVH_CONE_SMALLEST_DD ? slope * sqrtf(dd) : INFINITY;
    float d[3] = {direction.x, direction.y, direction.z};
    float o[3] = {origin.x, origin.y, origin.z};
    if (!(t_bound >= 0.0f)) /* NaN, or a ray that leaves the root before 0: no bound */
        t_bound = INFINITY;
    cone.slope = k;
    for (int axis = 0; axis < 3; ++axis) {
        float toward = 0.0f, away = 0.0f, enter_from = o[axis], leave_from = o[axis];
        if (d[axis] > k) {
            toward = 1.0f / (d[axis] + k);
            away = 1.0f / (d[axis] - k);
        } else if (d[axis] < -k) {
            toward = 1.0f / (d[axis] - k);
            away = 1.0f / (d[axis] + k);
        } else if (d[axis] == d[axis]) {
            /* The virtual cone of direction sign * 2k, slope k and apex t_bound (2k - |d|) / k
             * before the origin: its edges enclose the ray's cone up to t_bound. Its bounds are
             * the usual ones from origins moved by its half-width at t = 0, widened for their
             * rounding (2^-10 of it, and 2^-20 of |o| for the sum). */
            float sign = d[axis] < 0.0f ? -1.0f : 1.0f;
            float apex = t_bound * (2.0f * k - fabsf(d[axis])) * 1.0009765625f +
                         fabsf(o[axis]) * 9.5367431640625e-7f;
            toward = sign / (3.0f * k);
            away = sign / k;
            enter_from = o[axis] + sign * apex;
            leave_from = o[axis] - sign * apex;
        }
        float enter_shift = -enter_from * toward, leave_shift = -leave_from * away;
        /* A dropped axis (NaN, or unbounded), or a shift that overflowed: a fused
         * plane * scale - infinity would be an infinity whatever the plane, so drop it too. */
        if (toward == 0.0f || !(fabsf(enter_shift) <= 3.40282347e38f) ||
            !(fabsf(leave_shift) <= 3.40282347e38f)) {
            toward = away = 0.0f;
            enter_shift = -INFINITY;
            leave_shift = INFINITY;
        }
        cone.enter_scale[axis] = toward;
        cone.enter_shift[axis] = enter_shift;
        cone.leave_scale[axis] = away;
        cone.leave_shift[axis] = leave_shift;
    }
    return cone;
}

/* The ray's cone, once a ray: at most SPEC_BVH_CONE_SLOPE |d| t from the line, in every axis;
 * for any t, so an axis with |d| <= k is dropped (spec_bvh_cone_for_walk bounds it). */
SPEC_FN struct spec_bvh_cone spec_bvh_cone_of_ray(struct spec_vec3 origin,
                                                  struct spec_vec3 direction)
{
    return spec_bvh_cone_of_ray_sloped(origin, direction, SPEC_BVH_CONE_SLOPE, INFINITY);
}

/* The node with its box widened, once at build time, by the ray-independent part e of the cone
 * test's bound (see above): a node for spec_bvh_cone_entry, never for spec_bvh_entry. */
SPEC_FN struct spec_bvh_node spec_bvh_cone_widen_box(const struct spec_bvh_node *node)
{
    float size = spec_max_num(
        spec_max_num(spec_max_num(fabsf(node->lo.x), fabsf(node->hi.x)),
                     spec_max_num(fabsf(node->lo.y), fabsf(node->hi.y))),
        spec_max_num(fabsf(node->lo.z), fabsf(node->hi.z)));
    float extent = spec_max_num(spec_max_num(node->hi.x - node->lo.x, node->hi.y - node->lo.y),
                                node->hi.z - node->lo.z);
    float e = SPEC_BVH_ROUNDING * size + SPEC_BVH_CONE_EXTENT * extent;
    struct spec_bvh_node widened = *node;
    widened.lo = spec_v3(node->lo.x - e, node->lo.y - e, node->lo.z - e);
    widened.hi = spec_v3(node->hi.x + e, node->hi.y + e, node->hi.z + e);
    return widened;
}

/* One axis of spec_bvh_cone_entry: the t where the ray enters and leaves the widened slab. */
SPEC_FN void spec_bvh_cone_axis(float lo, float hi, const struct spec_bvh_cone *cone, int axis,
                                float *enter, float *leave)
{
    /* The plane the ray enters through: hi where it runs down the axis (a negative scale). */
    int down = cone->enter_scale[axis] < 0.0f;
    float near = down ? hi : lo, far = down ? lo : hi;
    *enter = SPEC_BVH_FMA(near, cone->enter_scale[axis], cone->enter_shift[axis]);
    *leave = SPEC_BVH_FMA(far, cone->leave_scale[axis], cone->leave_shift[axis]);
}

/* Where the ray's cone leaves the widened node's box (NaN when no axis bounds it): no sphere
 * inside can be reported a hit after it, by the same bound and rounding as the entry. */
SPEC_FN float spec_bvh_cone_leave(const struct spec_bvh_node *widened_node,
                                  const struct spec_bvh_cone *cone)
{
    float ex, lx, ey, ly, ez, lz;
    spec_bvh_cone_axis(widened_node->lo.x, widened_node->hi.x, cone, 0, &ex, &lx);
    spec_bvh_cone_axis(widened_node->lo.y, widened_node->hi.y, cone, 1, &ey, &ly);
    spec_bvh_cone_axis(widened_node->lo.z, widened_node->hi.z, cone, 2, &ez, &lz);
    return spec_min_num(spec_min_num(lx, ly), lz);
}

/* The cone for a walk of hits up to t_max: bounded over t <= min(t_max, where the ray leaves the
 * widened root), so that its axes with |d| <= k still cull (the ray's cone made twice). */
SPEC_FN struct spec_bvh_cone spec_bvh_cone_for_walk(const struct spec_bvh *widened_bvh,
                                                    struct spec_vec3 origin,
                                                    struct spec_vec3 direction, float slope,
                                                    float t_max)
{
    struct spec_bvh_cone unbounded =
        spec_bvh_cone_of_ray_sloped(origin, direction, slope, INFINITY);
    float leave = spec_bvh_cone_leave(&widened_bvh->nodes[0], &unbounded);
    return spec_bvh_cone_of_ray_sloped(origin, direction, slope, spec_min_num(t_max, leave));
}

/* spec_bvh_entry's contract through the cone: where the ray's cone enters the widened node's
 * box (0 or more), or INFINITY when no sphere inside can be reported a hit at or before t_max. */
SPEC_FN float spec_bvh_cone_entry(const struct spec_bvh_node *widened_node,
                                  const struct spec_bvh_cone *cone, float t_max)
{
    float ex, lx, ey, ly, ez, lz;
    spec_bvh_cone_axis(widened_node->lo.x, widened_node->hi.x, cone, 0, &ex, &lx);
    spec_bvh_cone_axis(widened_node->lo.y, widened_node->hi.y, cone, 1, &ey, &ly);
    spec_bvh_cone_axis(widened_node->lo.z, widened_node->hi.z, cone, 2, &ez, &lz);
    float enter = spec_max_num(spec_max_num(ex, ey), spec_max_num(ez, 0.0f));
    float leave = spec_min_num(spec_min_num(lx, ly), lz);
    if (enter > leave || enter > t_max)
        return INFINITY;
    return enter;
}

/* Whether the walk enters a node: spec_bvh_entry's test of the ray (cone NULL), or the cone's
 * (spec_bvh_cone_entry, on a tree whose every node went through spec_bvh_cone_widen_box). */
SPEC_FN int spec_bvh_walk_enters(const struct spec_bvh_node *node, struct spec_vec3 origin,
                                 struct spec_vec3 inverse, const struct spec_bvh_cone *cone,
                                 float t_max)
{
    return cone ? spec_bvh_cone_entry(node, cone, t_max) != INFINITY
                : spec_bvh_may_hit(node, origin, inverse, t_max);
}

/* spec_closest_hit's answer (SPEC.md section 2: 0 <= t < 100, the first sphere in file order
 * wins a tie), through the hierarchy, its boxes tested as spec_bvh_walk_enters says. */
SPEC_FN int spec_bvh_closest_hit_by(const struct spec_world *world, const struct spec_bvh *bvh,
                                    struct spec_vec3 origin, struct spec_vec3 direction,
                                    const struct spec_bvh_cone *cone, float *t_hit)
{
    float closest = SPEC_FAR_PLANE;
    int hit = -1;
    struct spec_vec3 inverse = spec_bvh_inverse(direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!spec_bvh_walk_enters(node, origin, inverse, cone, closest))
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
 * is no far limit) shadows, so the first one found ends the search. Boxes as above. */
SPEC_FN float spec_bvh_shadow_by(const struct spec_world *world, const struct spec_bvh *bvh,
                                 struct spec_vec3 origin, struct spec_vec3 direction,
                                 const struct spec_bvh_cone *cone)
{
    struct spec_vec3 inverse = spec_bvh_inverse(direction);
    int stack[SPEC_BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const struct spec_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!spec_bvh_walk_enters(node, origin, inverse, cone, INFINITY))
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

/* The walks with spec_bvh_entry's box test: what build/cpu-reference uses. */
SPEC_FN int spec_bvh_closest_hit(const struct spec_world *world, const struct spec_bvh *bvh,
                                 struct spec_vec3 origin, struct spec_vec3 direction,
                                 float *t_hit)
{
    return spec_bvh_closest_hit_by(world, bvh, origin, direction, 0, t_hit);
}

SPEC_FN float spec_bvh_shadow(const struct spec_world *world, const struct spec_bvh *bvh,
                              struct spec_vec3 origin, struct spec_vec3 direction)
{
    return spec_bvh_shadow_by(world, bvh, origin, direction, 0);
}

/* The walks through the cone test, on a tree whose every node went through
 * spec_bvh_cone_widen_box, with a cone of the given slope (SPEC_BVH_CONE_SLOPE): the same
 * answers. */
SPEC_FN int spec_bvh_cone_closest_hit(const struct spec_world *world,
                                      const struct spec_bvh *widened_bvh, struct spec_vec3 origin,
                                      struct spec_vec3 direction, float slope, float *t_hit)
{
    struct spec_bvh_cone cone =
        spec_bvh_cone_for_walk(widened_bvh, origin, direction, slope, SPEC_FAR_PLANE);
    return spec_bvh_closest_hit_by(world, widened_bvh, origin, direction, &cone, t_hit);
}

SPEC_FN float spec_bvh_cone_shadow(const struct spec_world *world,
                                   const struct spec_bvh *widened_bvh, struct spec_vec3 origin,
                                   struct spec_vec3 direction, float slope)
{
    struct spec_bvh_cone cone =
        spec_bvh_cone_for_walk(widened_bvh, origin, direction, slope, INFINITY);
    return spec_bvh_shadow_by(world, widened_bvh, origin, direction, &cone);
}

#endif
