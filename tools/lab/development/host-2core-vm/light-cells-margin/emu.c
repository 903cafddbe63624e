/*
 * CPU emulation of stage 14's bins (stages/14-sphere-binning/render.cu: bin_tiles_kernel,
 * bin_light_kernel, light_cell, shadow_factor, has_intersection) against the CPU reference's loops
 * over every sphere (common/raytrace/spec_trace.h), on one scene, for four light-bin rules: mode 0
 * the stage as it is: radius 1.01 r + LIGHT_OFFSET mode 1  one rigorous bound, no fallback: +
 * SHADOW_REACH * (farthest_origin + |c - light|), where farthest_origin bounds |shadow-ray origin -
 * light| (farthest_shadow_origin below) mode 2  the brief's first guess: + SHADOW_REACH * (min(|cam
 * - light| + 2 FAR, max_i(|c_i - light| + r_i)) + |c - light| + r) mode 3  the proposed diff
 * (light-margin.diff): + SHADOW_REACH * (near + LIGHT_OFFSET + |c - light|), near =
 * shadow_near_distance below (camera to light plus the longest tangent from the camera to a
 * sphere); a shadow ray with |direction|^2 > near^2 (its origin farther than near from the light)
 * tests every sphere (the last row) Float arithmetic as in the .cu (build with -ffp-contract=off,
 * like -fmad=false). CUDA's acosf and asinf (2 ulp) and __fdividef (2 ulp) are not glibc's: every
 * bin decision within ANGLE_TOL radians of its threshold is "maybe" rather than in or out, and a
 * direction whose cell quotient lies within 4 ulp of a cell edge gets both cells; a ray fails
 * surely only when every candidate answer loses the blocker, and may fail when some could.
 *
 * Each mode is judged two ways: a lane's own cell (what the bins promise, whatever the warp
 * shape) and stage 14's warp union (a warp of 32 pixels of a row loops over the union of its
 * active lanes' cells; on seed 60 this gives the GPU's 46 differing pixels, the own cell 49).
 * Pixels: the reference's colour (bit-exact with build/cpu-reference) against the colour with the
 * stage's shadow factors.
 *
 * Usage: emu SCENE [REF.ppm STAGE.ppm]  one line (main prints its fields); the images: the
 *                                       emulated reference, mode 0 with the warp union
 *        emu --bench SCENE ROWS         light-bin entries per mode; shadow rays of every
 *                                       (height/ROWS)-th row: spheres per ray, warp unions, trips
 * Environment: FARTHEST (mode 1's bound), NEAR (mode 3's shadow_near), B0 (bench's two-set
 * variant), DUMP (mode 0's differing pixels).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raytrace/scene.h"

#define FAR_PLANE 100.0f
#define TILE_SIZE 32
#define LIGHT_CELLS 64
#define PRIMARY_MARGIN 1e-3f
#define WIDEST_CORNER_SPREAD 1.5f
#define PI_RADIANS 3.14159274f
#define SHADOW_MARGIN 1e-2f
#define LIGHT_OFFSET 0.004f
#define SHADOW_REACH 1.2e-3f /* SPEC_BVH_REACH */
#define ANGLE_TOL 1e-5f      /* >> a few ulp of an angle under 4 radians (2.4e-7 each) */
#define MODES 4
#define CELLS (3 * LIGHT_CELLS * LIGHT_CELLS)

enum { OUT = 0, MAYBE = 1, IN = 2 };

typedef struct spec_vec3 v3;
static v3 add3(v3 a, v3 b) { return spec_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 sub3(v3 a, v3 b) { return spec_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static v3 scale3(float s, v3 v) { return spec_v3(s * v.x, s * v.y, s * v.z); }
static float dot3(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 unit3(v3 v) { return scale3(1.0f / sqrtf(dot3(v, v)), v); }
static float angle_between_units(v3 a, v3 b) { return acosf(fminf(fmaxf(dot3(a, b), -1.0f), 1.0f)); }

static const struct scene *S;
static int n;
static int tiles_x, tiles_y, W, H;

/* cone_may_hit, with reach (0 for tiles and mode 0): radius = 1.01 r + extra + reach * distance.
 * Returns IN, OUT or MAYBE (within ANGLE_TOL of the threshold). */
static int cone_status(v3 apex, float extra, float reach, v3 axis, float spread, int both,
                       float margin, int s)
{
    const v3 to = sub3(S->spheres[s].centre, apex);
    const float distance = sqrtf(dot3(to, to));
    const float radius = 1.01f * S->spheres[s].radius + extra + reach * distance;
    if (!(distance > radius)) return IN;
    float cosine = dot3(axis, to) / distance;
    if (both) cosine = fabsf(cosine);
    const float separation = acosf(fminf(cosine, 1.0f));
    const float limit = spread + asinf(radius / distance) + margin;
    if (!(separation > limit)) return separation > limit - ANGLE_TOL ? MAYBE : IN;
    return separation > limit + ANGLE_TOL ? OUT : MAYBE;
}

/* ---- the intersections: the reference's and the stage's ---------------------------------- */

static int stage_intersect(v3 origin, v3 direction, int s, float *t)
{
    const struct spec_sphere *sp = &S->spheres[s];
    const float a = dot3(direction, direction);
    const v3 oc = sub3(origin, sp->centre);
    const float k = dot3(oc, oc) - sp->radius * sp->radius;
    const float half_b = dot3(direction, oc);
    if (k > 0.0f && half_b > 1e-18f) return 0;
    const float qd = half_b * half_b - a * k;
    if (qd < 0.0f) return 0;
    const float root = sqrtf(qd);
    const float t0 = (-half_b - root) / a, t1 = (-half_b + root) / a;
    *t = t0 > 0.0f ? t0 : t1;
    return *t > 0.0f;
}

static int stage_closest(v3 origin, v3 direction, float *distance)
{
    int closest = -1;
    float cd = FAR_PLANE;
    for (int s = 0; s < n; s++) {
        float t;
        if (stage_intersect(origin, direction, s, &t) && t < cd) cd = t, closest = s;
    }
    *distance = cd;
    return closest;
}

/* ---- the light bins, worked out lazily per (mode, cell, sphere) -------------------------- */

static float light_extra[MODES], light_reach[MODES], near_sq[MODES];
static float *light_extra_per_sphere[MODES]; /* mode 2 adds r per sphere */
static signed char *light_status[MODES];      /* CELLS x n, -1 not yet worked out */
static v3 cell_axis[CELLS];
static float cell_spread[CELLS];

static void cell_cone(int cell)
{
    const int face = cell / (LIGHT_CELLS * LIGHT_CELLS);
    const int cu = cell / LIGHT_CELLS % LIGHT_CELLS, cv = cell % LIGHT_CELLS;
    const float u0 = -1.0f + 2.0f * cu / LIGHT_CELLS, u1 = -1.0f + 2.0f * (cu + 1) / LIGHT_CELLS;
    const float v0 = -1.0f + 2.0f * cv / LIGHT_CELLS, v1 = -1.0f + 2.0f * (cv + 1) / LIGHT_CELLS;
    v3 c[5];
    for (int k = 0; k < 5; k++) {
        const float u = k == 0 ? 0.5f * (u0 + u1) : k & 1 ? u1 : u0;
        const float v = k == 0 ? 0.5f * (v0 + v1) : k & 2 ? v1 : v0;
        c[k] = unit3(face == 0 ? spec_v3(1.0f, u, v) : face == 1 ? spec_v3(u, 1.0f, v) : spec_v3(u, v, 1.0f));
    }
    float spread = 0.0f;
    for (int k = 1; k < 5; k++) spread = fmaxf(spread, angle_between_units(c[0], c[k]));
    cell_axis[cell] = c[0];
    cell_spread[cell] = spread;
}

static int light_bin(int mode, int cell, int s)
{
    if (cell == CELLS) return IN;
    signed char *st = &light_status[mode][(size_t)cell * n + s];
    if (*st < 0) {
        float extra = light_extra[mode] + (light_extra_per_sphere[mode] ? light_extra_per_sphere[mode][s] : 0.0f);
        *st = (signed char)cone_status(S->light_position, extra, light_reach[mode], cell_axis[cell],
                                       cell_spread[cell], 1, SHADOW_MARGIN, s);
    }
    return *st;
}

/* The cells light_cell may pick for this direction: 1, 2 or 4 (__fdividef's 2 ulp). */
static int cell_range(float q, int *lo, int *hi)
{
    const float scale = 0.5f * LIGHT_CELLS;
    float e = 4.0f * (nextafterf(fabsf(q), INFINITY) - fabsf(q)) + 1e-37f;
    int a = (int)(((q - e) + 1.0f) * scale), b = (int)(((q + e) + 1.0f) * scale);
    a = a < 0 ? 0 : a > LIGHT_CELLS - 1 ? LIGHT_CELLS - 1 : a;
    b = b < 0 ? 0 : b > LIGHT_CELLS - 1 ? LIGHT_CELLS - 1 : b;
    *lo = a, *hi = b;
    return b - a + 1;
}

static int light_cells(v3 d, int cells[4])
{
    const float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
    float major, u, v;
    int face;
    if (ax >= ay && ax >= az) face = 0, major = d.x, u = d.y, v = d.z;
    else if (ay >= az) face = 1, major = d.y, u = d.x, v = d.z;
    else face = 2, major = d.z, u = d.x, v = d.y;
    if (!(fabsf(major) > 0.0f)) { cells[0] = CELLS; return 1; }
    int ulo, uhi, vlo, vhi, k = 0;
    cell_range(u / major, &ulo, &uhi);
    cell_range(v / major, &vlo, &vhi);
    for (int cu = ulo; cu <= uhi; cu++)
        for (int cv = vlo; cv <= vhi; cv++) cells[k++] = (face * LIGHT_CELLS + cu) * LIGHT_CELLS + cv;
    return k;
}

/* The stage's shadow decision under a mode: 0 lit, 1 shadowed, 2 maybe either. Also the first
 * blocker of the stage's arithmetic over every sphere (for diagnostics). */
static int stage_shadow(int mode, v3 o, v3 d, int *first_blocker)
{
    int cells[4], m = light_cells(d, cells), maybe = 0;
    *first_blocker = -1;
    for (int s = 0; s < n; s++) {
        float t;
        if (!(stage_intersect(o, d, s, &t) && t > 1e-6f)) continue;
        if (*first_blocker < 0) *first_blocker = s;
        int all_in = 1, all_out = 1;
        for (int c = 0; c < m; c++) {
            int b = light_bin(mode, cells[c], s);
            all_in &= b == IN, all_out &= b == OUT;
        }
        if (all_in) return 1;
        if (!all_out) maybe = 1;
    }
    return maybe ? 2 : 0;
}

/* ---- the tile bins ------------------------------------------------------------------------ */

static v3 *tile_axis;
static float *tile_spread;
static signed char *tile_status;

static void tile_cone(int tile)
{
    const int i0 = (tile % tiles_x) * TILE_SIZE, j0 = (tile / tiles_x) * TILE_SIZE;
    const int i1 = (i0 + TILE_SIZE < W ? i0 + TILE_SIZE : W) - 1, j1 = (j0 + TILE_SIZE < H ? j0 + TILE_SIZE : H) - 1;
    const v3 origin = S->camera;
    const float x0 = 2.0f * ((float)i0 + 0.5f) / (float)(W - 1) - 1.0f;
    const float x1 = 2.0f * ((float)i1 + 0.5f) / (float)(W - 1) - 1.0f;
    const float y0 = 1.0f - 2.0f * ((float)j0 + 0.5f) / (float)(H - 1);
    const float y1 = 1.0f - 2.0f * ((float)j1 + 0.5f) / (float)(H - 1);
    const v3 axis = unit3(sub3(spec_v3(0.5f * (x0 + x1), 0.5f * (y0 + y1), -1.0f), origin));
    float spread = 0.0f;
    for (int c = 0; c < 4; c++)
        spread = fmaxf(spread, angle_between_units(axis, unit3(sub3(spec_v3(c & 1 ? x1 : x0, c & 2 ? y1 : y0, -1.0f), origin))));
    if (!(spread < WIDEST_CORNER_SPREAD)) spread = PI_RADIANS;
    tile_axis[tile] = axis;
    tile_spread[tile] = spread;
}

static int tile_bin(int tile, int s)
{
    signed char *st = &tile_status[(size_t)tile * n + s];
    if (*st < 0) *st = (signed char)cone_status(S->camera, 0.0f, 0.0f, tile_axis[tile], tile_spread[tile], 0, PRIMARY_MARGIN, s);
    return *st;
}

/* ---- the bound on a shadow ray's origin --------------------------------------------------- */

static double len(v3 v) { return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z); }

/* An upper bound on |o - light| for every shadow ray's origin o (the proposed fix, in double):
 *   primary: o = camera + t d + 0.001 N, t < FAR_PLANE, d = (px, py, -1) - camera, |d| at most
 *   its largest at the four corner pixels; reflection: o = q + 0.001 N', q = lifted + t R with
 *   |R| = 1, t < FAR_PLANE. So |o - light| <= |camera - light| + FAR (max|d| + 1) + 0.002.
 *   And o lies on a sphere, up to the rounded test's reach (1e-3 of the distance from the ray's
 *   origin, camera or a primary point): <= 1.002 max_i(|c_i - light| + r_i + 1e-3 |camera - c_i|)
 *   + 0.002. The smaller of the two, rounded up. */
static float farthest_shadow_origin(const struct scene *sc, int width, int height)
{
    double maxd = 0;
    for (int c = 0; c < 4; c++) {
        v3 d = spec_primary_direction(c & 1 ? width - 1 : 0, c & 2 ? height - 1 : 0, width, height, sc->camera);
        double l = len(d);
        maxd = l > maxd ? l : maxd;
    }
    double b1 = len(sub3(sc->camera, sc->light_position)) + FAR_PLANE * (maxd + 1.0) + 0.002;
    double m = 0;
    for (int s = 0; s < sc->sphere_count; s++) {
        const struct spec_sphere *sp = &sc->spheres[s];
        double e = len(sub3(sp->centre, sc->light_position)) + sp->radius + 1e-3 * len(sub3(sc->camera, sp->centre));
        m = e > m ? e : m;
    }
    double b2 = 1.002 * m + 0.002;
    double b = (b1 < b2 ? b1 : b2) * (1 + 1e-5);
    return (float)b;
}

/* The diff's shadow_near_distance, on the scene (the stage's Sphere array holds the same floats).
 */
static float shadow_near_distance(const struct scene *sc)
{
    double farthest = 0.0;
    for (int s = 0; s < sc->sphere_count; s++) {
        const double dx = (double)sc->spheres[s].centre.x - sc->camera.x;
        const double dy = (double)sc->spheres[s].centre.y - sc->camera.y;
        const double dz = (double)sc->spheres[s].centre.z - sc->camera.z;
        const double d = sqrt(dx * dx + dy * dy + dz * dz), r = sc->spheres[s].radius;
        const double reach = (d > 1.001 * r ? sqrt(d * d - r * r) : d + r) + 1e-3 * d;
        farthest = reach > farthest ? reach : farthest;
    }
    const double lx = (double)sc->light_position.x - sc->camera.x;
    const double ly = (double)sc->light_position.y - sc->camera.y;
    const double lz = (double)sc->light_position.z - sc->camera.z;
    return (float)(sqrt(lx * lx + ly * ly + lz * lz) + farthest);
}

static float brief_bound(const struct scene *sc)
{
    double b1 = len(sub3(sc->camera, sc->light_position)) + 2 * FAR_PLANE, m = 0;
    for (int s = 0; s < sc->sphere_count; s++) {
        double e = len(sub3(sc->spheres[s].centre, sc->light_position)) + sc->spheres[s].radius;
        m = e > m ? e : m;
    }
    return (float)(b1 < m ? b1 : m);
}

static void setup_modes(const struct scene *sc, int width, int height)
{
    light_extra[0] = LIGHT_OFFSET, light_reach[0] = 0.0f, light_extra_per_sphere[0] = NULL;
    /* the diff's kernel: extra = LIGHT_OFFSET + SHADOW_REACH * farthest, reach = SHADOW_REACH */
    light_extra[1] = LIGHT_OFFSET + SHADOW_REACH * (getenv("FARTHEST") ? (float)atof(getenv("FARTHEST")) : farthest_shadow_origin(sc, width, height));
    light_reach[1] = SHADOW_REACH, light_extra_per_sphere[1] = NULL;
    light_extra[2] = LIGHT_OFFSET + SHADOW_REACH * brief_bound(sc);
    light_reach[2] = SHADOW_REACH;
    light_extra_per_sphere[2] = malloc(sizeof(float) * (size_t)sc->sphere_count);
    for (int s = 0; s < sc->sphere_count; s++) light_extra_per_sphere[2][s] = SHADOW_REACH * sc->spheres[s].radius;
    const float near = getenv("NEAR") ? (float)atof(getenv("NEAR")) : shadow_near_distance(sc);
    /* exactly the diff's bin_light_kernel: cone_may_hit(light, LIGHT_OFFSET + reach, ...) */
    light_extra[3] = 0.0f, light_reach[3] = 0.0f;
    light_extra_per_sphere[3] = malloc(sizeof(float) * (size_t)sc->sphere_count);
    for (int s = 0; s < sc->sphere_count; s++) {
        const v3 to_centre = sub3(sc->spheres[s].centre, sc->light_position);
        const float reach = SHADOW_REACH * (near + LIGHT_OFFSET + sqrtf(dot3(to_centre, to_centre)));
        light_extra_per_sphere[3][s] = LIGHT_OFFSET + reach;
    }
    for (int m = 0; m < 3; m++) near_sq[m] = INFINITY;
    near_sq[3] = near * near;
    for (int m = 0; m < MODES; m++) {
        light_status[m] = malloc((size_t)CELLS * sc->sphere_count);
        memset(light_status[m], -1, (size_t)CELLS * sc->sphere_count);
    }
    for (int c = 0; c < CELLS; c++) cell_cone(c);
}

/* ---- the pixel ----------------------------------------------------------------------------- */

static unsigned char *ref_image, *stage_image; /* mode 0's sure flips, for checking */

struct pixel_parts {
    v3 all; /* before the shadow: mul(cap(lighting), cap(surface)) depends on reflection_shadow */
    v3 lighting, colour, other_colour, background;
    int reflection_hit;
};

static void channel(float value, unsigned char *out)
{
    *out = !(value > 0.0f) ? 0 : value >= 255.0f ? 255 : (unsigned char)value;
}

static void finish(const struct pixel_parts *p, float shadow, float reflection_shadow, unsigned char rgb[3])
{
    v3 reflected = p->reflection_hit >= 0 ? spec_scale(reflection_shadow, p->other_colour) : p->background;
    v3 surface = spec_add(spec_scale(SPEC_SURFACE_MIX, spec_sub(p->colour, reflected)), reflected);
    v3 all = spec_mul(spec_cap(p->lighting), spec_cap(surface));
    v3 c = spec_scale(SPEC_PIXEL_SCALE * shadow, all);
    channel(c.x, rgb), channel(c.y, rgb + 1), channel(c.z, rgb + 2);
}

struct stats {
    long shadow_rays, ref_shadowed;
    /* [mode][variant: 0 the lane's own cell, 1 stage 14's warp union][0 primary shadow, 1
     * reflection shadow] */
    long sure[MODES][2][2], maybe[MODES][2][2];
    long pixel_sure[MODES][2], pixel_maybe[MODES][2];
    long primary_sure, primary_maybe, arithmetic, fallback;
    double worst_reach;  /* max over spheres the reference's shadow test hits: (h - r) / |o - c| */
    double needed_reach; /* mode 0's sure failures: the reach that would have kept the blocker */
};

/* The reach a blocker needs: the extra radius that puts it in the cell's cone, over |o - c|. */
static double needed(int cell, int s, v3 o)
{
    if (cell == CELLS) return 0;
    const struct spec_sphere *sp = &S->spheres[s];
    v3 to = sub3(sp->centre, S->light_position);
    double dist = len(to);
    double cosine = fabs(((double)cell_axis[cell].x * to.x + (double)cell_axis[cell].y * to.y + (double)cell_axis[cell].z * to.z) / dist);
    double sep = acos(cosine > 1 ? 1 : cosine);
    double r = dist * sin(sep - cell_spread[cell] - SHADOW_MARGIN);
    return (r - 1.01 * sp->radius - LIGHT_OFFSET) / len(sub3(sp->centre, o));
}

/* How far outside the sphere the ray's line passes, over the distance from o to the centre. */
static double reach_of(v3 o, v3 d, int s)
{
    const struct spec_sphere *sp = &S->spheres[s];
    double ocx = (double)sp->centre.x - o.x, ocy = (double)sp->centre.y - o.y, ocz = (double)sp->centre.z - o.z;
    double dd = (double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z;
    double along = (ocx * d.x + ocy * d.y + ocz * d.z) / dd;
    double px = ocx - along * d.x, py = ocy - along * d.y, pz = ocz - along * d.z;
    double h = sqrt(px * px + py * py + pz * pz);
    return (h - sp->radius) / sqrt(ocx * ocx + ocy * ocy + ocz * ocz);
}

struct lane {
    int on, primary_lost;
    struct pixel_parts p;
    float ref_shadow[2];  /* the reference's factors (1 when there is no such ray) */
    int has_ray[2];       /* [primary shadow, reflection shadow] */
    v3 o[2], d[2];
    float a[2]; /* dot3(d, d), as shadow_factor works it out */
    int ncells[2], cells[2][4];
    unsigned char ref[3];
};

/* A sphere's bin status for a lane's ray: IN when every candidate cell holds it surely. */
static int lane_status(int m, const struct lane *l, int w, int s)
{
    if (!(l->a[w] <= near_sq[m])) return IN; /* the last row: every sphere */
    int all_in = 1, all_out = 1;
    for (int c = 0; c < l->ncells[w]; c++) {
        int b = light_bin(m, l->cells[w][c], s);
        all_in &= b == IN, all_out &= b == OUT;
    }
    return all_in ? IN : all_out ? OUT : MAYBE;
}

/* The stage's shadow decision for lane k: 0 lit, 1 shadowed, 2 maybe either; with union, the
 * warp's loop over the union of its active lanes' cells (warp_union). */
static int decide(int m, struct lane *lanes, int count, int k, int w, int use_union, int *blocker)
{
    const struct lane *l = &lanes[k];
    int maybe = 0;
    *blocker = -1;
    for (int s = 0; s < n; s++) {
        float t;
        if (!(stage_intersect(l->o[w], l->d[w], s, &t) && t > 1e-6f)) continue;
        if (*blocker < 0) *blocker = s;
        int b = lane_status(m, l, w, s);
        if (use_union && b != IN) {
            int any_maybe = b == MAYBE;
            for (int q = 0; q < count && b != IN; q++) {
                if (q == k || !lanes[q].on || !lanes[q].has_ray[w]) continue;
                int bq = lane_status(m, &lanes[q], w, s);
                if (bq == IN) b = IN;
                else if (bq == MAYBE) any_maybe = 1;
            }
            if (b != IN) b = any_maybe ? MAYBE : OUT;
        }
        if (b == IN) return 1;
        if (b == MAYBE) maybe = 1;
    }
    return maybe ? 2 : 0;
}

static void trace(struct stats *st, int i, int j, struct lane *l)
{
    const v3 origin = S->camera;
    const v3 direction = spec_primary_direction(i, j, W, H, origin);
    struct spec_world world = scene_world(S);
    float t, ts;
    memset(l, 0, sizeof *l);
    int hit = spec_closest_hit(&world, origin, direction, &t);
    int hs = stage_closest(origin, direction, &ts);
    if (hs != hit || (hit >= 0 && ts != t)) st->arithmetic++;
    unsigned char *r = ref_image + 3 * ((size_t)j * W + i), *g = stage_image + 3 * ((size_t)j * W + i);
    if (hit < 0) {
        channel(S->background.x, r), channel(S->background.y, r + 1), channel(S->background.z, r + 2);
        memcpy(g, r, 3);
        return;
    }
    l->on = 1;
    int tile = (j / TILE_SIZE) * tiles_x + i / TILE_SIZE;
    int tb = tile_bin(tile, hit);
    l->primary_lost = tb != IN;
    if (tb == OUT) st->primary_sure++;
    else if (tb == MAYBE) st->primary_maybe++;

    const struct spec_sphere *sphere = &S->spheres[hit];
    v3 point = spec_add(origin, spec_scale(t, direction));
    v3 normal = spec_norm(spec_sub(point, sphere->centre));
    v3 to_viewer = spec_norm(spec_sub(S->camera, point));
    v3 to_light = spec_norm(spec_sub(S->light_position, point));
    v3 from_light = spec_scale(-1.0f, to_light);
    v3 mirrored = spec_norm(spec_sub(from_light, spec_scale(2.0f * spec_dot(from_light, normal), normal)));
    v3 lifted = spec_add(point, spec_scale(SPEC_SURFACE_OFFSET, normal));
    l->has_ray[0] = 1, l->o[0] = lifted, l->d[0] = spec_sub(S->light_position, lifted);

    struct pixel_parts *p = &l->p;
    float tr, trs;
    p->reflection_hit = spec_closest_hit(&world, lifted, mirrored, &tr);
    int rs = stage_closest(lifted, mirrored, &trs);
    if (rs != p->reflection_hit || (rs >= 0 && trs != tr)) st->arithmetic++;
    if (p->reflection_hit >= 0) {
        const struct spec_sphere *other = &S->spheres[p->reflection_hit];
        v3 q = spec_add(lifted, spec_scale(tr, mirrored));
        v3 qn = spec_norm(spec_sub(q, other->centre));
        l->has_ray[1] = 1;
        l->o[1] = spec_add(q, spec_scale(SPEC_SURFACE_OFFSET, qn));
        l->d[1] = spec_add(spec_sub(S->light_position, q), spec_scale(SPEC_SURFACE_OFFSET, qn));
        p->other_colour = other->colour;
    }
    for (int w = 0; w < 2; w++) {
        l->ref_shadow[w] = 1.0f;
        if (!l->has_ray[w]) continue;
        l->ref_shadow[w] = spec_shadow(&world, l->o[w], l->d[w]);
        l->ncells[w] = light_cells(l->d[w], l->cells[w]);
        l->a[w] = dot3(l->d[w], l->d[w]);
        st->fallback += !(l->a[w] <= near_sq[3]);
        st->shadow_rays++;
        if (l->ref_shadow[w] < 1.0f) {
            st->ref_shadowed++;
            for (int s = 0; s < n; s++) {
                float ts2;
                if (spec_intersect(l->o[w], l->d[w], &S->spheres[s], &ts2) && ts2 > SPEC_SHADOW_EPSILON) {
                    double rr = reach_of(l->o[w], l->d[w], s);
                    if (rr > st->worst_reach) st->worst_reach = rr;
                }
            }
        }
    }
    p->background = spec_v3(S->background.x / 255.0f, S->background.y / 255.0f, S->background.z / 255.0f);
    float diffuse = spec_max0(spec_dot(to_light, normal));
    float specular = spec_pow32(spec_max0(spec_dot(mirrored, to_viewer)));
    v3 light = S->light_colour;
    p->lighting = spec_add(spec_add(spec_scale(S->ambient, light), spec_scale(S->diffuse * diffuse, light)),
                           spec_scale(S->specular * specular, light));
    p->colour = sphere->colour;
    finish(p, l->ref_shadow[0], l->ref_shadow[1], l->ref);
    memcpy(r, l->ref, 3);
    memcpy(g, l->ref, 3);
}

/* One warp of stage 14: pixels i0 .. i0 + 31 of row j (blocks of 32 x 32 threads). */
static void warp(struct stats *st, int i0, int j)
{
    struct lane lanes[32];
    int count = W - i0 < 32 ? W - i0 : 32;
    for (int k = 0; k < count; k++) trace(st, i0 + k, j, &lanes[k]);
    for (int k = 0; k < count; k++) {
        struct lane *l = &lanes[k];
        if (!l->on) continue;
        for (int m = 0; m < MODES; m++)
            for (int u = 0; u < 2; u++) {
                int v[2] = {0, 0};
                for (int w = 0; w < 2; w++) {
                    if (!l->has_ray[w]) continue;
                    int blocker, s = decide(m, lanes, count, k, w, u, &blocker);
                    int refs = l->ref_shadow[w] < 1.0f;
                    if (m == 0 && u == 0 && (blocker >= 0) != refs) st->arithmetic++;
                    if (s == 2) v[w] = 2, st->maybe[m][u][w]++;
                    else if (s != refs) {
                        v[w] = 1, st->sure[m][u][w]++;
                        if (m == 0 && u == 0 && blocker >= 0)
                            for (int c = 0; c < l->ncells[w]; c++) {
                                double rr = needed(l->cells[w][c], blocker, l->o[w]);
                                if (rr > st->needed_reach) st->needed_reach = rr;
                            }
                    }
                }
                if (l->primary_lost || (!v[0] && !v[1])) continue; /* a lost primary: counted apart */
                float f[2], a[2];
                for (int w = 0; w < 2; w++) {
                    float flip = l->ref_shadow[w] < 1.0f ? 1.0f : SPEC_SHADOW_FACTOR;
                    f[w] = v[w] == 1 ? flip : l->ref_shadow[w];
                    a[w] = v[w] ? flip : l->ref_shadow[w];
                }
                unsigned char alt[3];
                finish(&l->p, f[0], f[1], alt);
                if (m == 0 && u == 1) memcpy(stage_image + 3 * ((size_t)j * W + i0 + k), alt, 3);
                if (memcmp(l->ref, alt, 3)) { st->pixel_sure[m][u]++; continue; }
                finish(&l->p, a[0], a[1], alt);
                if (memcmp(l->ref, alt, 3)) st->pixel_maybe[m][u]++;
            }
    }
}

static void setup_tiles(int width, int height)
{
    W = width, H = height;
    tiles_x = (W + TILE_SIZE - 1) / TILE_SIZE, tiles_y = (H + TILE_SIZE - 1) / TILE_SIZE;
    tile_axis = malloc(sizeof(v3) * (size_t)tiles_x * tiles_y);
    tile_spread = malloc(sizeof(float) * (size_t)tiles_x * tiles_y);
    tile_status = malloc((size_t)tiles_x * tiles_y * n);
    memset(tile_status, -1, (size_t)tiles_x * tiles_y * n);
    for (int t = 0; t < tiles_x * tiles_y; t++) tile_cone(t);
}

/* ---- the benchmark: how full the light bins get ------------------------------------------- */

static int bench(const char *path, int side)
{
    static struct scene sc;
    char err[512];
    if (scene_load(path, &sc, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    S = &sc, n = sc.sphere_count;
    setup_modes(&sc, sc.width, sc.height); /* the bins of the 8192 x 8192 frame */
    printf("mode 3: shadow_near %g: radius + 0.004 + 0.0012 (shadow_near + 0.004 + |c - light|)\n", sqrt(near_sq[3]));
    printf("farthest shadow origin %g (brief's bound %g); extra radius: mode 0 %g, mode 1 %g + %g |c - light|, mode 2 %g + %g (|c - light| + r)\n",
           farthest_shadow_origin(&sc, sc.width, sc.height), brief_bound(&sc), light_extra[0], light_extra[1], light_reach[1], light_extra[2], light_reach[2]);
    long entries[MODES] = {0}, maybes[MODES] = {0};
    for (int m = 0; m < MODES; m++)
        for (int c = 0; c < CELLS; c++)
            for (int s = 0; s < n; s++) {
                int b = light_bin(m, c, s);
                entries[m] += b != OUT, maybes[m] += b == MAYBE;
            }
    for (int m = 0; m < MODES; m++)
        printf("mode %d: %ld (cell, sphere) entries of %d x %d (%.3f per cell; %ld within the angle tolerance)\n", m,
               entries[m], CELLS, n, (double)entries[m] / CELLS, maybes[m]);
    for (int s = 0; s < n; s++) {
        printf("  sphere %2d r %-6g |c-light| %-8.4g cells:", s, sc.spheres[s].radius, len(sub3(sc.spheres[s].centre, sc.light_position)));
        for (int m = 0; m < MODES; m++) {
            long k = 0;
            for (int c = 0; c < CELLS; c++) k += light_bin(m, c, s) != OUT;
            printf(" %6ld", k);
        }
        printf("\n");
    }
    /* Shadow rays at side x side: per ray the spheres of its cell; per warp (32 pixels of a row,
     * the lanes with a shadow ray) the union of the lanes' cells and the number of loop trips
     * (the union's spheres up to the last lane's first blocker). */
    W = sc.width, H = sc.height;
    double ray_spheres[MODES][2] = {{0}}, warp_union[MODES][2] = {{0}}, warp_trips[MODES][2] = {{0}};
    long rays[2] = {0}, warps[2] = {0}, far[2] = {0}, hist[2][16] = {{0}};
    double ideal[2] = {0}, twolevel[2] = {0};
    int step = W / side;
    setup_tiles(W, H);
    double tile_trips = 0;
    long all_warps = 0;
    for (int j = 0; j < H; j += step) {
        for (int i0 = 0; i0 < W; i0 += 32) {
            /* a warp: pixels i0 .. i0 + 31 of row j */
            unsigned long long uni[MODES][2] = {{0}};
            {
                int tile = (j / TILE_SIZE) * tiles_x + i0 / TILE_SIZE, k = 0;
                for (int s = 0; s < n; s++) k += tile_bin(tile, s) != OUT;
                tile_trips += k, all_warps++;
            }
            int active[2] = {0};
            struct { unsigned long long bin[MODES]; int blocker_order[MODES]; v3 o, d; int on; } lane[32][2];
            memset(lane, 0, sizeof lane);
            for (int l = 0; l < 32; l++) {
                int i = i0 + l;
                v3 dir = spec_primary_direction(i, j, W, H, sc.camera);
                float t;
                struct spec_world world = scene_world(&sc);
                int hit = spec_closest_hit(&world, sc.camera, dir, &t);
                if (hit < 0) continue;
                const struct spec_sphere *sphere = &sc.spheres[hit];
                v3 point = spec_add(sc.camera, spec_scale(t, dir));
                v3 normal = spec_norm(spec_sub(point, sphere->centre));
                v3 to_light = spec_norm(spec_sub(sc.light_position, point));
                v3 from_light = spec_scale(-1.0f, to_light);
                v3 mirrored = spec_norm(spec_sub(from_light, spec_scale(2.0f * spec_dot(from_light, normal), normal)));
                v3 lifted = spec_add(point, spec_scale(SPEC_SURFACE_OFFSET, normal));
                lane[l][0].o = lifted, lane[l][0].d = spec_sub(sc.light_position, lifted), lane[l][0].on = 1;
                float tr;
                int rh = spec_closest_hit(&world, lifted, mirrored, &tr);
                if (rh >= 0) {
                    v3 q = spec_add(lifted, spec_scale(tr, mirrored));
                    v3 qn = spec_norm(spec_sub(q, sc.spheres[rh].centre));
                    lane[l][1].o = spec_add(q, spec_scale(SPEC_SURFACE_OFFSET, qn));
                    lane[l][1].d = spec_add(spec_sub(sc.light_position, q), spec_scale(SPEC_SURFACE_OFFSET, qn));
                    lane[l][1].on = 1;
                }
                for (int w = 0; w < 2; w++) {
                    if (!lane[l][w].on) continue;
                    int cells[4];
                    light_cells(lane[l][w].d, cells); /* the exact quotient's cell: cells[0] */
                    rays[w]++;
                    active[w]++;
                    {
                        double dr = len(lane[l][w].d); /* |light - origin| (+0.002) */
                        int k = 0, k2 = 0;
                        float b0 = getenv("B0") ? (float)atof(getenv("B0")) : 20.0f;
                        for (int s = 0; s < n; s++) {
                            k += cone_status(sc.light_position, LIGHT_OFFSET + SHADOW_REACH * (float)(dr + 0.002), SHADOW_REACH,
                                             cell_axis[cells[0]], cell_spread[cells[0]], 1, SHADOW_MARGIN, s) != OUT;
                            k2 += dr > b0 ? light_bin(1, cells[0], s) != OUT
                                          : cone_status(sc.light_position, LIGHT_OFFSET + SHADOW_REACH * (b0 + 0.002f), SHADOW_REACH,
                                                        cell_axis[cells[0]], cell_spread[cells[0]], 1, SHADOW_MARGIN, s) != OUT;
                        }
                        ideal[w] += k, twolevel[w] += k2, far[w] += dr > b0;
                        int bucket = dr < 1 ? 0 : (int)log2(dr) + 1;
                        hist[w][bucket > 15 ? 15 : bucket]++;
                    }
                    for (int m = 0; m < MODES; m++) {
                        unsigned long long bits = 0;
                        float a = dot3(lane[l][w].d, lane[l][w].d);
                        for (int s = 0; s < n; s++)
                            if (!(a <= near_sq[m]) || light_bin(m, cells[0], s) != OUT) bits |= 1ull << s;
                        lane[l][w].bin[m] = bits;
                        uni[m][w] |= bits;
                        ray_spheres[m][w] += __builtin_popcountll(bits);
                    }
                }
            }
            for (int w = 0; w < 2; w++) {
                if (!active[w]) continue;
                warps[w]++;
                for (int m = 0; m < MODES; m++) {
                    warp_union[m][w] += __builtin_popcountll(uni[m][w]);
                    /* trips: the union's spheres in order until every lane has found a blocker */
                    int trips = 0, k = 0;
                    for (int s = 0; s < n; s++) {
                        if (!(uni[m][w] >> s & 1)) continue;
                        k++;
                        for (int l = 0; l < 32; l++) {
                            if (!lane[l][w].on || lane[l][w].blocker_order[m]) continue;
                            float t;
                            if (stage_intersect(lane[l][w].o, lane[l][w].d, s, &t) && t > 1e-6f) lane[l][w].blocker_order[m] = k;
                        }
                    }
                    for (int l = 0; l < 32; l++) {
                        if (!lane[l][w].on) continue;
                        int mine = lane[l][w].blocker_order[m] ? lane[l][w].blocker_order[m] : k;
                        trips = mine > trips ? mine : trips;
                    }
                    warp_trips[m][w] += trips;
                }
            }
        }
    }
    printf("per warp sampled (%ld): primary loop trips %.3f (the tile's bin), warps with a hit %.3f (reflection loop: %d spheres), with a reflection hit %.3f\n",
           all_warps, tile_trips / all_warps, (double)warps[0] / all_warps, n, (double)warps[1] / all_warps);
    for (int m = 0; m < MODES; m++) {
        double total = tile_trips / all_warps + (double)warps[0] / all_warps * n + warp_trips[m][0] / all_warps + warp_trips[m][1] / all_warps;
        printf("  mode %d: sphere-loop trips per warp, all four loops: %.3f (shadow loops %.3f)\n", m, total,
               (warp_trips[m][0] + warp_trips[m][1]) / all_warps);
    }
    const char *name[2] = {"primary shadow rays", "reflection shadow rays"};
    for (int w = 0; w < 2; w++) {
        printf("%s: %ld rays, %ld warps sampled (rows every %d, 32-pixel warps)\n", name[w], rays[w], warps[w], step);
        for (int m = 0; m < MODES; m++)
            printf("  mode %d: spheres in the ray's cell %.3f; warp union %.3f; warp loop trips %.3f\n", m,
                   ray_spheres[m][w] / rays[w], warp_union[m][w] / warps[w], warp_trips[m][w] / warps[w]);
        printf("  per-ray bound (each ray's own |o - light|): spheres in the ray's cell %.3f\n", ideal[w] / rays[w]);
        printf("  two sets, near rays (|o - light| <= B0 = %s) in bins grown for B0, far rays %.1f%% in mode 1's: %.3f\n",
               getenv("B0") ? getenv("B0") : "20", 100.0 * far[w] / rays[w], twolevel[w] / rays[w]);
        printf("  |o - light| histogram (<1, [1,2), [2,4), ...):");
        for (int b = 0; b < 16; b++) printf(" %ld", hist[w][b]);
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--bench")) return bench(argv[2], atoi(argv[3]));
    static struct scene sc;
    char err[512];
    if (scene_load(argv[1], &sc, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    if (sc.sphere_count > 1024) { printf("limit %d\n", sc.sphere_count); return 0; }
    S = &sc, n = sc.sphere_count;
    setup_modes(&sc, sc.width, sc.height);
    setup_tiles(sc.width, sc.height);
    struct stats st;
    memset(&st, 0, sizeof st);
    ref_image = calloc((size_t)W * H, 3), stage_image = calloc((size_t)W * H, 3);
    for (int j = 0; j < H; j++)
        for (int i0 = 0; i0 < W; i0 += 32) warp(&st, i0, j);
    if (argc > 3) { /* emu SCENE REF.ppm STAGE.ppm: the images, to check against cpu-reference */
        for (int k = 0; k < 2; k++) {
            FILE *f = fopen(argv[2 + k], "wb");
            fprintf(f, "P6\n%d %d\n255\n", W, H);
            fwrite(k ? stage_image : ref_image, 3, (size_t)W * H, f);
            fclose(f);
        }
    }
    /* n pixels shadow_rays ref_shadowed arithmetic primary_sure primary_maybe worst_reach
     * needed_reach,
     * then per mode (0 now, 1 fix, 2 brief), per variant (own cell, warp union):
     * sure(primary-shadow) sure(reflection-shadow) maybe(ps) maybe(rs) pixel_sure pixel_maybe */
    printf("%d %d %ld %ld %ld %ld %ld %.3e %.3e %ld", n, W * H, st.shadow_rays, st.ref_shadowed, st.arithmetic,
           st.primary_sure, st.primary_maybe, st.worst_reach, st.needed_reach, st.fallback);
    for (int m = 0; m < MODES; m++)
        for (int u = 0; u < 2; u++)
            printf(" %s %ld %ld %ld %ld %ld %ld", u ? "," : "|", st.sure[m][u][0], st.sure[m][u][1], st.maybe[m][u][0],
                   st.maybe[m][u][1], st.pixel_sure[m][u], st.pixel_maybe[m][u]);
    printf("\n");
    return 0;
}
