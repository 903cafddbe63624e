/* walk-work: how much work an exact walk of the CPU reference's tree leaves a ray, counted on the
 * CPU, and the least time that work can take on a GPU without ray-tracing cores.
 *
 *   build/walk-work --scene FILE [--size WxH] [--step N] [--sms S] [--clock-ghz F] [--packets]
 *                   [--half-boxes] [--wide N] [--neighbour-blocker] [--lanes]
 *
 * It traces the rays of one pixel in N across and one row in N down (default 16) of a WxH frame
 * (default the scene's size), as SPEC.md section 2 does (a primary ray; on a hit a shadow ray and a
 * reflection; a shadow ray where the reflection hits), through the CPU reference's tree
 * (common/raytrace/bvh.c: binned surface area heuristic, leaves of up to SPEC_BVH_LEAF_SPHERES
 * spheres) with the chapter's best walk: the cone box test (stage 27), both children's boxes tested
 * from the parent (stage 25), the nearer entered child first and the farther skipped once the hit
 * is nearer (stage 24), shadow rays ending at the first blocker. Every answer is checked against
 * spec_bvh_closest_hit and spec_bvh_shadow (the reference's walk): a mismatch is an error.
 *
 * It prints, for each kind of ray, the rays a pixel and the boxes and spheres a ray tests, and
 * the frame's floor: the operations those tests need at the least (BOX_OPERATIONS and
 * SPHERE_OPERATIONS below; no loads, no stack, no loop counted) divided by what the GPU's lanes
 * can execute (--sms SMs x 4 schedulers x 32 lanes x --clock-ghz, default the H100 SXM's 132 SMs
 * at its 1.98 GHz boost clock): the time of a kernel that issues every cycle with every lane busy
 * and does nothing but these tests.
 *
 * With --packets it also walks the rays from the camera of the 8x4 tile holding each pixel traced
 * (each tile once) as side stage 30a's warp does, as one packet (packet_walk below), and prints
 * what the tile's rays walked one at a time and as a packet cost in nodes and tests.
 *
 * With --half-boxes every widened box of the tree is rounded outward to half-precision floats
 * (IEEE binary16: low planes down, high planes up, past +-65,504 an infinity on the outer side)
 * as stage 31 stores its children's boxes, and the walk counted on those: how many more
 * boxes and spheres the looser boxes cost a ray, every answer still the reference's.
 *
 * With --wide N (2 to 8) the same tree is walked N wide: each inner node's children replaced, the
 * one with the largest surface area first, by their own children until it has N (or only leaves),
 * as wide trees are collapsed from binary ones (Ylitie, Karras and Laine 2017); a wide node's
 * children's boxes are all tested where it stands, its leaves' spheres in the order the ray enters
 * them, and its entered inner children pushed farthest first. It prints the nodes a ray visits
 * (each a dependent load and a stack step) beside the boxes and spheres it tests: what a wider
 * node trades.
 *
 * With --neighbour-blocker each pixel's two shadow rays first try the sphere that blocked the same
 * kind of shadow ray of the pixel to its left (traced first, not counted): a ray it blocks needs
 * no walk, one it misses pays one more sphere test (what a warp's neighbouring lanes could share).
 *
 * With --lanes it also traces every pixel of the 8x4 tile holding each pixel of one in 4N across
 * and one row in 4N down, as a warp of stage 30 on holds them (one lane a pixel), and counts each
 * lane's steps (nodes visited) of each kind of ray. A warp walks its lanes' rays of one kind
 * together, as long as the longest, one kind after another: it prints the share of lanes busy in
 * those steps, and what it would be if a lane went on to its pixel's next ray as soon as one ended
 * (the pixel's walks in one loop: as long as the lane with the most steps in all), and if every
 * lane always had a ray (the steps of all, over 32): how many of a warp's steps the lanes' waiting
 * costs, under each way of keeping them busy.
 * Exit status 0, 1 when an answer differs (or a packet's stack overflows), 2 on bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raytrace/bvh.h"
#include "runtime/options.h"
#include "raytrace/scene.h"

static const char *const program = "walk-work";

/* The least arithmetic of one test, in the GPU's operations:
 * - a box through the cone (spec_bvh.h's table), fused as every GPU stage's box test may be: 6
 *   fma, 5 min/max, 2 compares; its 6 selects left out, since a GPU walk can pick the near and
 *   far planes by indexing its loads;
 * - a sphere that is missed, the usual case: spec_intersect up to its discriminant's sign,
 *   unfused, as SPEC.md's bits need (the stages build with -fmad=false): 3 subtractions for oc,
 *   5 for d.oc and 1 to double it, 5 for oc.oc and 1 to take r*r (stored with the sphere), 3
 *   for b*b - 4a*k (4a once a ray) and 1 compare: 19. */
#define BOX_OPERATIONS 13
#define SPHERE_OPERATIONS 19

enum ray_kind { PRIMARY, SHADOW, REFLECTION, REFLECTION_SHADOW, KINDS };
static const char *const kind_names[KINDS] = {"primary", "shadow", "reflection",
                                              "reflection's shadow"};

struct work {
    unsigned long long rays, boxes, spheres;
    unsigned long long nodes; /* nodes whose children or spheres the walk tested */
    /* Optional (NULL): seen[n] is set to stamp when node n is first visited under that stamp,
     * and distinct counts those first visits: the nodes a set of walks visited together. */
    unsigned *seen;
    unsigned stamp;
    unsigned long long distinct;
};

/* Counts a visit of node n. */
static void visit(struct work *work, int n)
{
    work->nodes++;
    if (work->seen && work->seen[n] != work->stamp) {
        work->seen[n] = work->stamp;
        work->distinct++;
    }
}

/* ---- a wide tree: --wide N ------------------------------------------------------------------ */

#define WIDE_MAX 8

/* Node n's children in the tree walked N wide: indices of the binary tree's nodes (each tested
 * by its box), count of them; kept for every inner node of the binary tree. */
struct wide_node {
    int child[WIDE_MAX];
    int count;
};

/* When set (--wide), walk() walks the tree this wide: wide_nodes[n] for each inner node n. */
static const struct wide_node *wide_nodes;

static float half_area(const struct spec_bvh_node *node)
{
    float dx = node->hi.x - node->lo.x, dy = node->hi.y - node->lo.y, dz = node->hi.z - node->lo.z;
    return dx * dy + dy * dz + dz * dx;
}

/* Inner node n's children, N wide: its two, then the inner child of largest surface area
 * replaced by its two until there are N or none is inner (a leaf stays a child). */
static void collapse(const struct spec_bvh *tree, int n, int width, struct wide_node *wide)
{
    wide->count = 2;
    wide->child[0] = tree->nodes[n].first;
    wide->child[1] = tree->nodes[n].first + 1;
    while (wide->count < width) {
        int widest = -1;
        for (int k = 0; k < wide->count; ++k) {
            const struct spec_bvh_node *c = &tree->nodes[wide->child[k]];
            if (c->count == 0 &&
                (widest < 0 || half_area(c) > half_area(&tree->nodes[wide->child[widest]])))
                widest = k;
        }
        if (widest < 0)
            break;
        int first = tree->nodes[wide->child[widest]].first;
        wide->child[widest] = first;
        wide->child[wide->count++] = first + 1;
    }
}

/* A leaf's spheres against the best hit (or any blocker): as walk() tests them. Returns the
 * blocker + 1 when an any_hit walk is blocked. */
static int test_leaf(const struct spec_world *world, const struct spec_bvh *tree,
                     const struct spec_bvh_node *leaf, struct spec_vec3 origin,
                     struct spec_vec3 direction, int any_hit, float *closest, int *hit,
                     struct work *work)
{
    for (int k = 0; k < leaf->count; ++k) {
        int s = tree->order[leaf->first + k];
        float t;
        work->spheres++;
        if (!spec_intersect(origin, direction, &world->spheres[s], &t))
            continue;
        if (any_hit) {
            if (t > SPEC_SHADOW_EPSILON)
                return s + 1;
        } else if (t >= 0.0f && (t < *closest || (t == *closest && *hit >= 0 && s < *hit))) {
            *closest = t;
            *hit = s;
        }
    }
    return 0;
}

/* walk()'s contract on the wide tree: at a wide node every child's box tested, the entered ones
 * in the order the ray enters them: a leaf's spheres at once, an inner child pushed (the
 * farthest first, so that the nearest is popped next); a popped node skipped once the hit is
 * nearer than where the ray enters it. */
static int wide_walk(const struct spec_world *world, const struct spec_bvh *tree,
                     struct spec_vec3 origin, struct spec_vec3 direction, int any_hit,
                     float *t_hit, struct work *work)
{
    float closest = any_hit ? INFINITY : SPEC_FAR_PLANE;
    struct spec_bvh_cone cone = spec_bvh_cone_for_walk(tree, origin, direction,
                                                       SPEC_BVH_CONE_SLOPE, closest);
    int stack[SPEC_BVH_STACK * WIDE_MAX];
    float stack_entry[SPEC_BVH_STACK * WIDE_MAX];
    int top = 0, hit = -1;
    work->rays++;
    work->boxes++;
    float root_entry = spec_bvh_cone_entry(&tree->nodes[0], &cone, closest);
    if (root_entry != INFINITY) {
        stack[top] = 0;
        stack_entry[top++] = root_entry;
    }
    while (top > 0) {
        --top;
        if (stack_entry[top] > closest)
            continue;
        int current = stack[top];
        visit(work, current);
        if (tree->nodes[current].count > 0) { /* a root that is a leaf */
            int blocker = test_leaf(world, tree, &tree->nodes[current], origin, direction,
                                    any_hit, &closest, &hit, work);
            if (blocker)
                return blocker;
            continue;
        }
        const struct wide_node *wide = &wide_nodes[current];
        int order[WIDE_MAX];
        float entry[WIDE_MAX];
        int entered = 0;
        for (int k = 0; k < wide->count; ++k) {
            float e = spec_bvh_cone_entry(&tree->nodes[wide->child[k]], &cone, closest);
            work->boxes++;
            if (e == INFINITY)
                continue;
            /* Insertion by entry, the nearest first; equal entries keep the children's order. */
            int at = entered++;
            while (at > 0 && entry[at - 1] > e) {
                entry[at] = entry[at - 1];
                order[at] = order[at - 1];
                --at;
            }
            entry[at] = e;
            order[at] = wide->child[k];
        }
        for (int k = 0; k < entered; ++k) {
            const struct spec_bvh_node *c = &tree->nodes[order[k]];
            if (c->count == 0 || entry[k] > closest)
                continue;
            int blocker = test_leaf(world, tree, c, origin, direction, any_hit, &closest, &hit, work);
            if (blocker)
                return blocker;
        }
        for (int k = entered - 1; k >= 0; --k) {
            if (tree->nodes[order[k]].count != 0)
                continue;
            if (top >= SPEC_BVH_STACK * WIDE_MAX) {
                fprintf(stderr, "%s: error: the wide walk's stack overflowed\n", program);
                exit(1);
            }
            stack[top] = order[k];
            stack_entry[top++] = entry[k];
        }
    }
    if (any_hit)
        return 0;
    *t_hit = closest;
    return hit;
}

/* The nearer entered child first, the farther pushed, a pushed node skipped once the hit is
 * nearer than where the ray enters it; shadow (any_hit) ends at the first blocker past
 * SPEC_SHADOW_EPSILON. Returns the sphere hit (closest) or the blocker + 1 (any_hit), else -1
 * or 0; counts each box and sphere tested into work. */
static int walk(const struct spec_world *world, const struct spec_bvh *tree,
                struct spec_vec3 origin, struct spec_vec3 direction, int any_hit, float *t_hit,
                struct work *work)
{
    if (wide_nodes)
        return wide_walk(world, tree, origin, direction, any_hit, t_hit, work);
    float closest = any_hit ? INFINITY : SPEC_FAR_PLANE;
    struct spec_bvh_cone cone = spec_bvh_cone_for_walk(tree, origin, direction,
                                                       SPEC_BVH_CONE_SLOPE, closest);
    int stack[SPEC_BVH_STACK];
    float stack_entry[SPEC_BVH_STACK];
    int top = 0, hit = -1;
    work->rays++;
    work->boxes++;
    float root_entry = spec_bvh_cone_entry(&tree->nodes[0], &cone, closest);
    if (root_entry != INFINITY) {
        stack[top] = 0;
        stack_entry[top++] = root_entry;
    }
    while (top > 0) {
        --top;
        if (stack_entry[top] > closest)
            continue;
        int current = stack[top];
        const struct spec_bvh_node *node = &tree->nodes[current];
        visit(work, current);
        while (node->count == 0) {
            int near = node->first, far = node->first + 1;
            float near_entry = spec_bvh_cone_entry(&tree->nodes[near], &cone, closest);
            float far_entry = spec_bvh_cone_entry(&tree->nodes[far], &cone, closest);
            work->boxes += 2;
            if (far_entry < near_entry) {
                int n = near;
                float e = near_entry;
                near = far, near_entry = far_entry, far = n, far_entry = e;
            }
            if (far_entry != INFINITY) {
                stack[top] = far;
                stack_entry[top++] = far_entry;
            }
            if (near_entry == INFINITY)
                break;
            node = &tree->nodes[near];
            visit(work, near);
        }
        if (node->count == 0)
            continue;
        int blocker = test_leaf(world, tree, node, origin, direction, any_hit, &closest, &hit, work);
        if (blocker)
            return blocker;
    }
    if (any_hit)
        return 0;
    *t_hit = closest;
    return hit;
}

/* The reference's answer, to hold the counted walk to it. */
static int check(int same, const char *what, int i, int j)
{
    if (!same)
        fprintf(stderr, "%s: error: the counted walk's %s differs from the reference's at pixel "
                        "(%d, %d)\n", program, what, i, j);
    return same;
}

/* A shadow ray's walk (any blocker past SPEC_SHADOW_EPSILON), the sphere `candidate` (or none,
 * -1) tried first: a ray it blocks needs no walk, a ray it misses pays its test and walks. Returns
 * the blocker + 1, or 0. */
static int shadow_walk(const struct spec_world *world, const struct spec_bvh *tree,
                       struct spec_vec3 origin, struct spec_vec3 direction, int candidate,
                       struct work *work)
{
    if (candidate >= 0) {
        float t;
        work->spheres++;
        if (spec_intersect(origin, direction, &world->spheres[candidate], &t) &&
            t > SPEC_SHADOW_EPSILON) {
            work->rays++;
            return candidate + 1;
        }
    }
    return walk(world, tree, origin, direction, 1, NULL, work);
}

/* SPEC.md's rays of pixel (i, j) as spec_trace_pixel makes them (spec_surface_at,
 * spec_reflection_shadow_ray), without its shading, each walked and counted; its two shadow rays
 * try first the spheres candidate[0] and candidate[1] (-1: none), and their blockers (or -1) go to
 * blocker[0] and blocker[1]. 0, or -1 when an answer differs from the reference's walk. */
static int trace_pixel(const struct spec_world *world, const struct spec_bvh *reference,
                       const struct spec_bvh *tree, int i, int j, int width, int height,
                       struct work work[KINDS], const int candidate[2], int blocker[2])
{
    blocker[0] = blocker[1] = -1;
    struct spec_vec3 origin = world->camera;
    struct spec_vec3 direction = spec_primary_direction(i, j, width, height, origin);
    float t, t_ref;
    int hit = walk(world, tree, origin, direction, 0, &t, &work[PRIMARY]);
    int hit_ref = spec_bvh_closest_hit(world, reference, origin, direction, &t_ref);
    if (!check(hit == hit_ref && (hit < 0 || t == t_ref), "primary hit", i, j))
        return -1;
    if (hit < 0)
        return 0;
    struct spec_surface surface =
        spec_surface_at(world, origin, direction, t, &world->spheres[hit]);
    struct spec_vec3 lifted = surface.lifted, mirrored = surface.mirrored;
    struct spec_vec3 to_light_ray = spec_sub(world->light_position, lifted);

    int blocked = shadow_walk(world, tree, lifted, to_light_ray, candidate[0], &work[SHADOW]);
    blocker[0] = blocked - 1;
    if (!check((blocked ? SPEC_SHADOW_FACTOR : 1.0f) == spec_bvh_shadow(world, reference, lifted,
                                                                        to_light_ray),
               "shadow", i, j))
        return -1;

    hit = walk(world, tree, lifted, mirrored, 0, &t, &work[REFLECTION]);
    hit_ref = spec_bvh_closest_hit(world, reference, lifted, mirrored, &t_ref);
    if (!check(hit == hit_ref && (hit < 0 || t == t_ref), "reflection hit", i, j))
        return -1;
    if (hit < 0)
        return 0;
    struct spec_vec3 q_lifted, q_to_light;
    spec_reflection_shadow_ray(world, lifted, mirrored, t, &world->spheres[hit], &q_lifted,
                               &q_to_light);
    blocked = shadow_walk(world, tree, q_lifted, q_to_light, candidate[1], &work[REFLECTION_SHADOW]);
    blocker[1] = blocked - 1;
    if (!check((blocked ? SPEC_SHADOW_FACTOR : 1.0f) ==
                   spec_bvh_shadow(world, reference, q_lifted, q_to_light),
               "reflection's shadow", i, j))
        return -1;
    return 0;
}

/* ---- packets: a tile's rays from the camera walked as one (side stage 30a) ------------------ */

#define TILE_WIDTH 8
#define TILE_HEIGHT 4
#define PACKET (TILE_WIDTH * TILE_HEIGHT)

struct packet_work {
    unsigned long long tiles, rays;
    unsigned long long ray_nodes;      /* the rays' own walks: nodes visited, summed */
    unsigned long long most_ray_nodes; /* the most nodes one ray of a tile visited, summed */
    unsigned long long union_nodes;    /* the nodes any ray of a tile visited, summed */
    unsigned long long steps;          /* the packet's nodes, one a step */
    unsigned long long lane_steps;     /* the rays that took part in each step, summed */
    unsigned long long ray_boxes, ray_spheres, packet_boxes, packet_spheres;
};

/* Walks the rays of the lanes in `lanes` (one origin, directions[l]) as one packet, as stage
 * 30a's warp does: the packet is at one node with the lanes that reached it; each of them tests
 * the node's two children's boxes against its own best t (or a leaf's spheres); the packet goes
 * on to the child that most of the entering lanes enter first, with the lanes that enter it, and
 * pushes the other with its lanes; a popped child is not tested again against the lanes' best t
 * (the warp's stack holds no entry distances). The root's box is tested first, as walk() does.
 * Writes each lane's hit and t; returns 0, or -1 when the stack overflows. */
static int packet_walk(const struct spec_world *world, const struct spec_bvh *tree,
                       struct spec_vec3 origin, const struct spec_vec3 *directions,
                       unsigned lanes, int *hits, float *ts, struct packet_work *work)
{
    struct spec_bvh_cone cones[PACKET];
    int stack[SPEC_BVH_STACK];
    unsigned stack_lanes[SPEC_BVH_STACK];
    int top = 0;
    unsigned reached = 0;
    for (int l = 0; l < PACKET; ++l) {
        hits[l] = -1;
        ts[l] = SPEC_FAR_PLANE;
        if (!(lanes >> l & 1u))
            continue;
        cones[l] = spec_bvh_cone_for_walk(tree, origin, directions[l], SPEC_BVH_CONE_SLOPE,
                                          SPEC_FAR_PLANE);
        work->packet_boxes++;
        if (spec_bvh_cone_entry(&tree->nodes[0], &cones[l], ts[l]) != INFINITY)
            reached |= 1u << l;
    }
    if (reached) {
        stack[top] = 0;
        stack_lanes[top++] = reached;
    }
    while (top > 0) {
        --top;
        int current = stack[top];
        reached = stack_lanes[top];
        for (;;) {
            const struct spec_bvh_node *node = &tree->nodes[current];
            work->steps++;
            work->lane_steps += (unsigned)__builtin_popcount(reached);
            if (node->count > 0) {
                for (int l = 0; l < PACKET; ++l) {
                    if (!(reached >> l & 1u))
                        continue;
                    for (int k = 0; k < node->count; ++k) {
                        int s = tree->order[node->first + k];
                        float t;
                        work->packet_spheres++;
                        if (spec_intersect(origin, directions[l], &world->spheres[s], &t) &&
                            t >= 0.0f &&
                            (t < ts[l] || (t == ts[l] && hits[l] >= 0 && s < hits[l]))) {
                            ts[l] = t;
                            hits[l] = s;
                        }
                    }
                }
                break;
            }
            /* The votes: which lanes enter each child before their best t, and which enter the
             * second child first. */
            unsigned to_first = 0, to_second = 0, second_first = 0;
            for (int l = 0; l < PACKET; ++l) {
                if (!(reached >> l & 1u))
                    continue;
                float e0 = spec_bvh_cone_entry(&tree->nodes[node->first], &cones[l], ts[l]);
                float e1 = spec_bvh_cone_entry(&tree->nodes[node->first + 1], &cones[l], ts[l]);
                work->packet_boxes += 2;
                int enters0 = e0 != INFINITY && !(e0 > ts[l]);
                int enters1 = e1 != INFINITY && !(e1 > ts[l]);
                to_first |= (unsigned)enters0 << l;
                to_second |= (unsigned)enters1 << l;
                second_first |= (unsigned)(enters1 && (!enters0 || e1 < e0)) << l;
            }
            int second_next = 2 * __builtin_popcount(second_first) >
                              __builtin_popcount(to_first | to_second);
            unsigned next_lanes = second_next ? to_second : to_first;
            unsigned later_lanes = second_next ? to_first : to_second;
            if (!next_lanes)
                break;
            if (later_lanes) {
                if (top == SPEC_BVH_STACK)
                    return -1;
                stack[top] = node->first + (second_next ? 0 : 1);
                stack_lanes[top++] = later_lanes;
            }
            current = node->first + (second_next ? 1 : 0);
            reached = next_lanes;
        }
    }
    return 0;
}

/* The 8x4 tile whose corner is (x0, y0), cut at the frame's edges: its rays from the camera
 * walked one at a time (walk(), counting the nodes each visits and those any of them visits),
 * then as a packet, each lane's answer held to its own walk's. 0, or -1 when an answer differs. */
static int trace_tile(const struct spec_world *world, const struct spec_bvh *tree, int x0, int y0,
                      int width, int height, unsigned *seen, struct packet_work *work)
{
    struct spec_vec3 origin = world->camera, directions[PACKET];
    int hits[PACKET], packet_hits[PACKET];
    float ts[PACKET], packet_ts[PACKET];
    unsigned lanes = 0;
    struct work rays = {0};
    rays.seen = seen;
    rays.stamp = (unsigned)(work->tiles + 1);
    unsigned long long most = 0;
    for (int l = 0; l < PACKET; ++l) {
        int i = x0 + l % TILE_WIDTH, j = y0 + l / TILE_WIDTH;
        if (i >= width || j >= height)
            continue;
        lanes |= 1u << l;
        directions[l] = spec_primary_direction(i, j, width, height, origin);
        unsigned long long before = rays.nodes;
        hits[l] = walk(world, tree, origin, directions[l], 0, &ts[l], &rays);
        if (rays.nodes - before > most)
            most = rays.nodes - before;
    }
    if (packet_walk(world, tree, origin, directions, lanes, packet_hits, packet_ts, work)) {
        fprintf(stderr, "%s: error: the packet's stack of %d overflowed at tile (%d, %d)\n",
                program, SPEC_BVH_STACK, x0, y0);
        return -1;
    }
    for (int l = 0; l < PACKET; ++l)
        if ((lanes >> l & 1u) &&
            !(packet_hits[l] == hits[l] && (hits[l] < 0 || packet_ts[l] == ts[l]))) {
            fprintf(stderr, "%s: error: the packet's primary hit differs from the ray's own walk's "
                            "at pixel (%d, %d)\n", program, x0 + l % TILE_WIDTH,
                    y0 + l / TILE_WIDTH);
            return -1;
        }
    work->tiles++;
    work->rays += rays.rays;
    work->ray_nodes += rays.nodes;
    work->most_ray_nodes += most;
    work->union_nodes += rays.distinct;
    work->ray_boxes += rays.boxes;
    work->ray_spheres += rays.spheres;
    return 0;
}

/* What the packets cost against their rays' own walks, a tile on average. */
static void print_packets(const struct packet_work *w)
{
    double tiles = (double)w->tiles;
    printf("packets: the 8x4 tile of rays from the camera holding each pixel traced, %llu tiles "
           "(%llu rays), every answer its ray's own walk's\n", w->tiles, w->rays);
    printf("a tile's rays walked one at a time: %.1f nodes a ray, the most of a ray %.1f, "
           "%.1f nodes of any ray (%.1f summed)\n", (double)w->ray_nodes / (double)w->rays,
           (double)w->most_ray_nodes / tiles, (double)w->union_nodes / tiles,
           (double)w->ray_nodes / tiles);
    printf("the tile as one packet: %.1f steps (%.2fx the nodes of any ray, %.2fx the most of a "
           "ray), %.1f rays a step\n", (double)w->steps / tiles,
           (double)w->steps / (double)w->union_nodes, (double)w->steps / (double)w->most_ray_nodes,
           (double)w->lane_steps / (double)w->steps);
    printf("tests a tile: boxes %.1f one at a time, %.1f as a packet (%.2fx); spheres %.1f, "
           "%.1f (%.2fx)\n", (double)w->ray_boxes / tiles, (double)w->packet_boxes / tiles,
           (double)w->packet_boxes / (double)w->ray_boxes, (double)w->ray_spheres / tiles,
           (double)w->packet_spheres / tiles,
           (double)w->packet_spheres / (double)w->ray_spheres);
}

/* ---- lanes: a warp's steps against its lanes' (--lanes) ------------------------------------- */

struct lane_work {
    unsigned long long tiles, lanes;
    unsigned long long lane_steps;       /* every lane's steps of every kind, summed */
    unsigned long long one_loop;         /* a tile's most steps of one lane, its kinds together */
    unsigned long long kind_steps[KINDS];        /* the lanes' steps of each kind */
    unsigned long long kind_longest[KINDS];      /* a tile's longest walk of each kind */
};

/* Traces the 32 pixels of the tile at (x0, y0), a lane each, and adds what their walks cost a
 * warp. 0, or -1 when an answer differs from the reference's. */
static int trace_lanes(const struct spec_world *world, const struct spec_bvh *reference,
                       const struct spec_bvh *tree, int x0, int y0, int width, int height,
                       struct lane_work *w)
{
    unsigned long long longest[KINDS] = {0}, most = 0;
    for (int l = 0; l < PACKET; ++l) {
        int i = x0 + l % TILE_WIDTH, j = y0 + l / TILE_WIDTH;
        if (i >= width || j >= height)
            continue;
        struct work lane[KINDS];
        memset(lane, 0, sizeof lane);
        const int none[2] = {-1, -1};
        int blocker[2];
        if (trace_pixel(world, reference, tree, i, j, width, height, lane, none, blocker))
            return -1;
        unsigned long long all = 0;
        for (int k = 0; k < KINDS; ++k) {
            all += lane[k].nodes;
            w->kind_steps[k] += lane[k].nodes;
            if (lane[k].nodes > longest[k])
                longest[k] = lane[k].nodes;
        }
        w->lane_steps += all;
        if (all > most)
            most = all;
        w->lanes++;
    }
    for (int k = 0; k < KINDS; ++k)
        w->kind_longest[k] += longest[k];
    w->one_loop += most;
    w->tiles++;
    return 0;
}

/* What waiting lanes cost a warp, a tile on average, under three ways of walking. */
static void print_lanes(const struct lane_work *w, int tile_step)
{
    double tiles = (double)w->tiles, steps = (double)w->lane_steps, kind_by_kind = 0.0;
    for (int k = 0; k < KINDS; ++k)
        kind_by_kind += (double)w->kind_longest[k];
    printf("lanes: %llu tiles of 8x4 pixels (the tile of one pixel in %d across, one row in %d "
           "down), a lane a pixel, every answer the reference's\n", w->tiles, tile_step, tile_step);
    for (int k = 0; k < KINDS; ++k)
        printf("%-20s %.1f steps a lane, the warp %.1f: %.0f%% of its lanes busy\n", kind_names[k],
               (double)w->kind_steps[k] / (double)w->lanes, (double)w->kind_longest[k] / tiles,
               w->kind_longest[k] ? 100.0 * (double)w->kind_steps[k] /
                                        (PACKET * (double)w->kind_longest[k])
                                  : 0.0);
    printf("a warp's steps, a tile: %.1f kind by kind, each as long as its longest walk "
           "(%.0f%% of lanes busy); %.1f with a pixel's walks in one loop (%.0f%%); %.1f with "
           "every lane always walking (the lanes' %.1f steps over 32)\n",
           kind_by_kind / tiles, 100.0 * steps / (PACKET * kind_by_kind),
           (double)w->one_loop / tiles, 100.0 * steps / (PACKET * (double)w->one_loop),
           steps / PACKET / tiles, steps / tiles);
}

/* ---- half-precision boxes (stage 31) --------------------------------------------------------- */

/* The half nearest x on its side: below it (up = 0) or above it (up = 1), as CUDA's
 * __float2half_rd and __float2half_ru round; past the largest half, 65,504, the outer side is an
 * infinity and the inner one 65,504. A half has 11 significant bits: between 2^e and 2^(e+1) its
 * spacing is 2^(e-10), and 2^-24 below 2^-14 (its subnormals). x / spacing and the product
 * back are exact (powers of two, far from the float range's ends), so floorf and ceilf round
 * onto the grid. NaN and the infinities stay as they are (the cone test keeps a box with a NaN
 * plane). */
static float half_outward(float x, int up)
{
    if (x != x || x == INFINITY || x == -INFINITY)
        return x;
    if (x > 65504.0f)
        return up ? INFINITY : 65504.0f;
    if (x < -65504.0f)
        return up ? -65504.0f : -INFINITY;
    int exponent;
    frexpf(x, &exponent); /* |x| = m 2^exponent, m in [0.5, 1): 2^(exponent-1) <= |x| */
    float spacing = ldexpf(1.0f, (exponent - 1 - 10) > -24 ? exponent - 1 - 10 : -24);
    return (up ? ceilf(x / spacing) : floorf(x / spacing)) * spacing;
}

/* A widened node's box as stage 31 stores it. */
static void round_box_to_halves(struct spec_bvh_node *node)
{
    node->lo = spec_v3(half_outward(node->lo.x, 0), half_outward(node->lo.y, 0),
                       half_outward(node->lo.z, 0));
    node->hi = spec_v3(half_outward(node->hi.x, 1), half_outward(node->hi.y, 1),
                       half_outward(node->hi.z, 1));
}

static int parse_int(const char *text, int lo, int hi, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < lo || v > hi)
        return -1;
    *value = (int)v;
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s --scene FILE [--size WxH] [--step N] [--sms S] [--clock-ghz F]\n"
            "       [--packets] [--half-boxes] [--wide N] [--neighbour-blocker] [--lanes]\n"
            "  Counts the boxes and spheres an exact walk of the CPU reference's tree tests a\n"
            "  ray (one pixel in N across, one row in N down, of a WxH frame: default the\n"
            "  scene's size, N 16),\n"
            "  and the least time those tests take on S SMs at F GHz (default 132 and 1.98,\n"
            "  the H100 SXM's), every lane busy every cycle. --packets also walks the rays\n"
            "  from the camera of the 8x4 tile holding each pixel traced as one packet (side\n"
            "  stage 30a) and compares its nodes and tests with the rays' own walks.\n"
            "  --half-boxes walks a tree whose boxes are rounded outward to half-precision\n"
            "  floats, as stage 31 stores them. --wide N (2 to 8) walks the tree N wide,\n"
            "  collapsed from the binary one (the widest inner child opened first): a wide\n"
            "  node's children's boxes tested together, its entered inner children pushed.\n"
            "  The table's last column counts the nodes a ray visits. --neighbour-blocker\n"
            "  first traces the pixel to the left of each (uncounted), and each shadow ray\n"
            "  tries first the sphere that blocked that pixel's shadow ray of its kind.\n"
            "  --lanes traces whole 8x4 tiles (one in 4N across and down), a lane a pixel,\n"
            "  and prints the share of a warp's lanes busy as its walks take them.\n",
            program);
}

int main(int argc, char **argv)
{
    const char *scene_path = NULL;
    int width = 0, height = 0, step = 16, sms = 132, packets = 0, half_boxes = 0, wide = 0;
    int neighbour_blocker = 0, lanes = 0;
    double clock_ghz = 1.98;
    for (int a = 1; a < argc; ++a) {
        const char *value = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[a], "--packets")) {
            packets = 1;
            continue;
        }
        if (!strcmp(argv[a], "--half-boxes")) {
            half_boxes = 1;
            continue;
        }
        if (!strcmp(argv[a], "--neighbour-blocker")) {
            neighbour_blocker = 1;
            continue;
        }
        if (!strcmp(argv[a], "--lanes")) {
            lanes = 1;
            continue;
        }
        static const char *const known[] = {"--scene", "--size", "--step", "--sms", "--clock-ghz",
                                            "--wide"};
        int is_known = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
            is_known |= !strcmp(argv[a], known[k]);
        if (!is_known) {
            fprintf(stderr, "%s: error: unknown option %s (see --help)\n", program, argv[a]);
            return 2;
        }
        int bad = !value;
        if (bad) {
        } else if (!strcmp(argv[a], "--scene")) {
            scene_path = value;
        } else if (!strcmp(argv[a], "--size")) {
            /* Parsed and bounded as every program's --size (options.c, SPEC.md's sides). */
            long long w, h;
            char why[256];
            bad = options_parse_size(value, &w, &h) != 0;
            if (!bad && scene_check_size(w, h, why, sizeof why)) {
                fprintf(stderr, "%s: error: --size: %s\n", program, why);
                return 2;
            }
            width = (int)w, height = (int)h;
        } else if (!strcmp(argv[a], "--step")) {
            bad = parse_int(value, 1, 65536, &step);
        } else if (!strcmp(argv[a], "--wide")) {
            bad = parse_int(value, 2, WIDE_MAX, &wide);
        } else if (!strcmp(argv[a], "--sms")) {
            bad = parse_int(value, 1, 100000, &sms);
        } else if (!strcmp(argv[a], "--clock-ghz")) {
            char *end;
            clock_ghz = strtod(value, &end);
            bad = end == value || *end || !(clock_ghz > 0.0 && clock_ghz < 100.0);
        }
        if (bad) {
            fprintf(stderr, "%s: error: %s needs a valid value (see --help)\n", program, argv[a]);
            return 2;
        }
        ++a;
    }
    if (!scene_path) {
        fprintf(stderr, "%s: error: --scene FILE is required (see --help)\n", program);
        return 2;
    }
    struct scene scene;
    char error[512];
    if (scene_load(scene_path, &scene, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        return 2;
    }
    if (!width) {
        width = scene.width;
        height = scene.height;
    }
    if (step / 2 >= width || step / 2 >= height) {
        fprintf(stderr, "%s: error: --step %d leaves no pixel of a %dx%d frame (at most %d)\n",
                program, step, width, height, 2 * (width < height ? width : height) - 1);
        scene_free(&scene);
        return 2;
    }
    struct bvh reference_tree;
    if (bvh_build(scene.spheres, scene.sphere_count, &reference_tree)) {
        fprintf(stderr, "%s: error: out of host memory for the tree of %d spheres\n", program,
                scene.sphere_count);
        scene_free(&scene);
        return 2;
    }
    /* The same tree, every box widened once for the cone test (spec_bvh_cone_widen_box). */
    struct spec_bvh reference = bvh_view(&reference_tree), tree = reference;
    struct spec_bvh_node *widened = malloc((size_t)reference.node_count * sizeof *widened);
    if (!widened) {
        fprintf(stderr, "%s: error: out of host memory for the tree of %d spheres\n", program,
                scene.sphere_count);
        bvh_free(&reference_tree);
        scene_free(&scene);
        return 2;
    }
    int largest_leaf = 0;
    for (int n = 0; n < reference.node_count; ++n) {
        widened[n] = spec_bvh_cone_widen_box(&reference.nodes[n]);
        if (half_boxes)
            round_box_to_halves(&widened[n]);
        if (reference.nodes[n].count > largest_leaf)
            largest_leaf = reference.nodes[n].count;
    }
    /* A build of this program whose bvh.c saw another SPEC_BVH_LEAF_SPHERES (run.sh builds
     * variants) would print a wrong label: refuse it. */
    if (largest_leaf > SPEC_BVH_LEAF_SPHERES) {
        fprintf(stderr, "%s: error: the tree has a leaf of %d spheres, more than this program's "
                        "SPEC_BVH_LEAF_SPHERES (%d): build it and common/raytrace/bvh.c alike\n",
                program, largest_leaf, SPEC_BVH_LEAF_SPHERES);
        free(widened);
        bvh_free(&reference_tree);
        scene_free(&scene);
        return 1;
    }
    tree.nodes = widened;
    struct wide_node *wide_tree = NULL;
    if (wide) {
        wide_tree = malloc((size_t)reference.node_count * sizeof *wide_tree);
        if (!wide_tree) {
            fprintf(stderr, "%s: error: out of host memory for the tree of %d spheres\n", program,
                    scene.sphere_count);
            free(widened);
            bvh_free(&reference_tree);
            scene_free(&scene);
            return 2;
        }
        for (int n = 0; n < reference.node_count; ++n)
            if (reference.nodes[n].count == 0)
                collapse(&reference, n, wide, &wide_tree[n]);
        wide_nodes = wide_tree;
    }

    struct spec_world world = scene_world(&scene);
    struct work work[KINDS];
    memset(work, 0, sizeof work);
    unsigned long long pixels = 0;
    int status = 0;
    for (int j = step / 2; j < height && !status; j += step)
        for (int i = step / 2; i < width && !status; i += step, ++pixels) {
            int candidate[2] = {-1, -1}, blocker[2];
            if (neighbour_blocker && i > 0) {
                struct work uncounted[KINDS];
                memset(uncounted, 0, sizeof uncounted);
                status = trace_pixel(&world, &reference, &tree, i - 1, j, width, height, uncounted,
                                     candidate, blocker) ? 1 : 0;
                candidate[0] = blocker[0], candidate[1] = blocker[1];
            }
            if (!status)
                status = trace_pixel(&world, &reference, &tree, i, j, width, height, work,
                                     candidate, blocker) ? 1 : 0;
        }
    struct packet_work packet_work = {0};
    unsigned *seen = NULL;
    if (packets && !status) {
        seen = calloc((size_t)tree.node_count, sizeof *seen);
        if (!seen) {
            fprintf(stderr, "%s: error: out of host memory for the tree of %d spheres\n", program,
                    scene.sphere_count);
            status = 2;
        }
        /* A tile once: for the first pixel traced in it (the one before is in another tile). */
        for (int j = step / 2; j < height && !status; j += step)
            for (int i = step / 2; i < width && !status; i += step)
                if (i % TILE_WIDTH < step && j % TILE_HEIGHT < step)
                    status = trace_tile(&world, &tree, i - i % TILE_WIDTH, j - j % TILE_HEIGHT,
                                        width, height, seen, &packet_work) ? 1 : 0;
    }

    struct lane_work lane_work = {0};
    const int tile_step = 4 * step;
    for (int j = tile_step / 2; lanes && j < height && !status; j += tile_step)
        for (int i = tile_step / 2; i < width && !status; i += tile_step)
            status = trace_lanes(&world, &reference, &tree, i - i % TILE_WIDTH,
                                 j - j % TILE_HEIGHT, width, height, &lane_work) ? 1 : 0;

    if (!status) {
        char walked[128] = "";
        if (wide)
            snprintf(walked, sizeof walked, ", walked %d wide", wide);
        if (neighbour_blocker)
            snprintf(walked + strlen(walked), sizeof walked - strlen(walked),
                     ", shadow rays trying the left pixel's blocker first");
        printf("%s: %s, %d spheres, %dx%d frame, %llu pixels traced (one in %d across, one row "
               "in %d down), tree of %d nodes (leaves of at most %d sphere%s%s%s), every answer "
               "the reference's\n",
               program, scene_path, scene.sphere_count, width, height, pixels, step, step,
               reference.node_count, SPEC_BVH_LEAF_SPHERES, SPEC_BVH_LEAF_SPHERES > 1 ? "s" : "",
               half_boxes ? ", boxes rounded outward to halves" : "", walked);
        printf("%-20s %14s %14s %16s %16s %14s\n", "ray", "rays a pixel", "boxes a ray",
               "spheres a ray", "operations a ray", "nodes a ray");
        double operations = 0.0; /* a pixel's, on average */
        struct work all = {0};
        for (int k = 0; k < KINDS; ++k) {
            double rays = (double)work[k].rays, per = rays > 0.0 ? 1.0 / rays : 0.0;
            double ops = (double)work[k].boxes * BOX_OPERATIONS +
                         (double)work[k].spheres * SPHERE_OPERATIONS;
            printf("%-20s %14.3f %14.1f %16.1f %16.0f %14.1f\n", kind_names[k],
                   rays / (double)pixels, work[k].boxes * per, work[k].spheres * per, ops * per,
                   work[k].nodes * per);
            operations += ops / (double)pixels;
            all.rays += work[k].rays, all.boxes += work[k].boxes, all.spheres += work[k].spheres;
            all.nodes += work[k].nodes;
        }
        printf("%-20s %14.3f %14.1f %16.1f %16.0f %14.1f\n", "every ray", (double)all.rays / pixels,
               (double)all.boxes / all.rays, (double)all.spheres / all.rays,
               operations * pixels / (double)all.rays, (double)all.nodes / all.rays);
        double frame = operations * (double)width * (double)height;
        double lanes_per_second = (double)sms * 4.0 * 32.0 * clock_ghz * 1e9;
        printf("floor: %.3g operations a frame (%d a box, %d a sphere, nothing else counted); "
               "%d SMs x 4 schedulers x 32 lanes at %.2f GHz: %.2f ms with every lane busy "
               "every cycle\n",
               frame, BOX_OPERATIONS, SPHERE_OPERATIONS, sms, clock_ghz,
               frame / lanes_per_second * 1e3);
        if (packets)
            print_packets(&packet_work);
        if (lanes)
            print_lanes(&lane_work, tile_step);
    }
    free(seen);
    free(wide_tree);
    free(widened);
    bvh_free(&reference_tree);
    scene_free(&scene);
    return status;
}
