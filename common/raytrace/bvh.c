/* A bounding volume hierarchy built on the host, top down: each node's spheres are split in two
 * where the surface area heuristic says a ray will test the fewest spheres (the split among 16
 * bins of the centres along each axis that minimises area(left) x count(left) + area(right) x
 * count(right)), down to leaves of SPEC_BVH_LEAF_SPHERES or fewer. The heuristic matters for the
 * benchmark: its floor is a sphere of radius 1000, and splitting at median centres would keep
 * that huge box in a node beside half the other spheres at every level; by area, the floor is
 * cut off at once. Deterministic: bins and ties go by file order. */
#include "raytrace/bvh.h"

#include <stdlib.h>
#include <string.h>

#define BINS 16
/* Past this depth every split halves the node by file order, so the tree never gets deeper
 * than SPEC_BVH_STACK allows, whatever the scene (e.g. 100,000 spheres on one centre). */
#define BALANCED_FROM_DEPTH 40

struct box {
    struct spec_vec3 lo, hi;
};

static struct box box_of(const struct spec_sphere *s)
{
    struct spec_vec3 r = spec_v3(s->radius, s->radius, s->radius);
    struct box b = {spec_sub(s->centre, r), spec_add(s->centre, r)};
    return b;
}

static struct box box_union(struct box a, struct box b)
{
    struct box u = {spec_v3(spec_min_num(a.lo.x, b.lo.x), spec_min_num(a.lo.y, b.lo.y),
                            spec_min_num(a.lo.z, b.lo.z)),
                    spec_v3(spec_max_num(a.hi.x, b.hi.x), spec_max_num(a.hi.y, b.hi.y),
                            spec_max_num(a.hi.z, b.hi.z))};
    return u;
}

/* Half the surface area, as a double (an overflowed box is infinite, not NaN, when compared). */
static double half_area(struct box b)
{
    double x = (double)b.hi.x - b.lo.x, y = (double)b.hi.y - b.lo.y, z = (double)b.hi.z - b.lo.z;
    double area = x * y + y * z + z * x;
    return area == area ? area : HUGE_VAL;
}

static float component(struct spec_vec3 v, int axis)
{
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

struct builder {
    const struct spec_sphere *spheres;
    struct bvh *bvh;
    int *scratch;
};

/* The bin of a centre along an axis: 0..BINS-1. */
static int bin_of(float c, float lo, float extent)
{
    int bin = (int)((double)(c - lo) / extent * BINS);
    return bin < 0 ? 0 : bin >= BINS ? BINS - 1 : bin;
}

/* Where to split order[begin, end): the axis and the first bin of the right side, by the
 * surface area heuristic; -1 when every centre falls in one bin on every axis. */
static int best_split(const struct builder *b, int begin, int end, struct box centres, int *bin)
{
    double best = HUGE_VAL;
    int best_axis = -1;
    for (int axis = 0; axis < 3; ++axis) {
        float lo = component(centres.lo, axis), extent = component(centres.hi, axis) - lo;
        if (!(extent > 0.0f) || extent != extent || extent == INFINITY)
            continue;
        int count[BINS] = {0};
        struct box bounds[BINS];
        for (int k = begin; k < end; ++k) {
            const struct spec_sphere *s = &b->spheres[b->bvh->order[k]];
            int i = bin_of(component(s->centre, axis), lo, extent);
            bounds[i] = count[i]++ ? box_union(bounds[i], box_of(s)) : box_of(s);
        }
        /* Sweep from the right, then from the left, each split's two costs. */
        double right_cost[BINS];
        struct box right = {{0, 0, 0}, {0, 0, 0}};
        int right_count = 0;
        for (int i = BINS - 1; i > 0; --i) {
            if (count[i])
                right = right_count ? box_union(right, bounds[i]) : bounds[i];
            right_count += count[i];
            right_cost[i] = right_count ? half_area(right) * right_count : 0.0;
        }
        struct box left = {{0, 0, 0}, {0, 0, 0}};
        int left_count = 0;
        for (int i = 1; i < BINS; ++i) {
            if (count[i - 1])
                left = left_count ? box_union(left, bounds[i - 1]) : bounds[i - 1];
            left_count += count[i - 1];
            if (left_count == 0 || left_count == end - begin)
                continue;
            double cost = half_area(left) * left_count + right_cost[i];
            if (cost < best) {
                best = cost;
                best_axis = axis;
                *bin = i;
            }
        }
    }
    return best_axis;
}

/* Fills node `at` with spheres order[begin, end) and, for an inner node, its two children. */
static void build_node(struct builder *b, int at, int begin, int end, int depth)
{
    struct box bounds = box_of(&b->spheres[b->bvh->order[begin]]);
    struct box centres = {b->spheres[b->bvh->order[begin]].centre,
                          b->spheres[b->bvh->order[begin]].centre};
    for (int k = begin + 1; k < end; ++k) {
        const struct spec_sphere *s = &b->spheres[b->bvh->order[k]];
        struct box c = {s->centre, s->centre};
        bounds = box_union(bounds, box_of(s));
        centres = box_union(centres, c);
    }
    struct spec_bvh_node *node = &b->bvh->nodes[at];
    node->lo = bounds.lo;
    node->hi = bounds.hi;
    if (depth > b->bvh->depth)
        b->bvh->depth = depth;
    if (end - begin <= SPEC_BVH_LEAF_SPHERES) {
        node->first = begin;
        node->count = end - begin;
        return;
    }
    int bin = 0, axis = depth < BALANCED_FROM_DEPTH ? best_split(b, begin, end, centres, &bin) : -1;
    int middle;
    if (axis < 0) {
        middle = begin + (end - begin) / 2; /* halves by file order */
    } else {
        /* A stable partition: the left side's spheres first, each side in its earlier order. */
        float lo = component(centres.lo, axis), extent = component(centres.hi, axis) - lo;
        int n = 0;
        for (int pass = 0; pass < 2; ++pass)
            for (int k = begin; k < end; ++k) {
                int s = b->bvh->order[k];
                if ((bin_of(component(b->spheres[s].centre, axis), lo, extent) < bin) == (pass == 0))
                    b->scratch[n++] = s;
            }
        memcpy(b->bvh->order + begin, b->scratch, (size_t)n * sizeof *b->scratch);
        middle = begin;
        while (middle < end && bin_of(component(b->spheres[b->bvh->order[middle]].centre, axis), lo,
                                      extent) < bin)
            ++middle;
    }
    int left = b->bvh->node_count;
    b->bvh->node_count += 2;
    node->first = left;
    node->count = 0;
    build_node(b, left, begin, middle, depth + 1);
    build_node(b, left + 1, middle, end, depth + 1);
}

int bvh_build(const struct spec_sphere *spheres, int count, struct bvh *bvh)
{
    bvh->nodes = malloc((size_t)(2 * count) * sizeof *bvh->nodes);
    bvh->order = malloc((size_t)count * sizeof *bvh->order);
    int *scratch = malloc((size_t)count * sizeof *scratch);
    if (!bvh->nodes || !bvh->order || !scratch) {
        free(scratch);
        bvh_free(bvh);
        return -1;
    }
    for (int k = 0; k < count; ++k)
        bvh->order[k] = k;
    bvh->node_count = 1;
    bvh->depth = 0;
    struct builder b = {spheres, bvh, scratch};
    build_node(&b, 0, 0, count, 1);
    free(scratch);
    return 0;
}

void bvh_free(struct bvh *bvh)
{
    free(bvh->nodes);
    free(bvh->order);
    bvh->nodes = NULL;
    bvh->order = NULL;
    bvh->node_count = 0;
}

struct spec_bvh bvh_view(const struct bvh *bvh)
{
    struct spec_bvh view = {bvh->nodes, bvh->node_count, bvh->order};
    return view;
}
