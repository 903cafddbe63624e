/*
 * Reservoirs (SPEC-PATH-TRACING.md section 6, "reservoirs"): seed 003's ReSTIR lesson.
 * Next-event estimation at the camera ray's diffuse hit keeps its reservoir (the sample it chose
 * among nee's candidates, the sum of their weights and how many it stands for) in per-pixel
 * buffers, structures of arrays in memory, and merges into it the reservoir the pixel ended the
 * previous frame with (temporal reuse) and those of a few neighbours (spatial reuse), each
 * re-weighted by its target at this pixel's shading point; the shadow ray goes to the sample
 * the merged reservoir keeps. A frame is four passes over every pixel, each reading only what
 * the passes before it wrote: pt_restir_primary (1), pt_restir_temporal (2), pt_restir_spatial
 * (3), pt_restir_trace_sample (4).
 *
 * Like pt_math.h, which it builds on, this file is the arithmetic the CPU reference (gcc) and a
 * stage (nvcc) both call, so that they round alike; the stage chooses where the buffers live and
 * how the passes are launched. Every later diffuse hit of a path is plain nee, by pt_math.h's
 * pt_next_event. Nee's whole path, pt_trace_nee_path, is here, with the camera hit's estimate
 * as its one option: pt_trace_sample_with (nee and light-pool) and pass 4 share it.
 */
#ifndef PT_RESERVOIRS_H
#define PT_RESERVOIRS_H

#include "pathtrace/pt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The estimator of this file, numbered after pt_math.h's. PT_ESTIMATORS counts those, which
 * make one sample at a time (pt_trace_sample_with); this one renders frame by frame, pass by pass:
 * the CPU reference (pt_reference.c), the GPU ray count (common/runtime/count_rays.cu) and stage
 * p08e-reservoirs call the passes below themselves. */
enum pt_frame_estimator { PT_ESTIMATOR_RESERVOIRS = PT_ESTIMATORS, PT_ALL_ESTIMATORS };

#define PT_RESTIR_EVENT 1u          /* the camera ray's hit: segment 0, event 1 */
#define PT_RESTIR_HISTORY 20        /* the previous frame counts for 20 x 8 candidates at most */
#define PT_RESTIR_COUNT_CAP (PT_RESTIR_HISTORY * PT_NEE_CANDIDATES) /* 160 */
#define PT_RESTIR_NEIGHBOURS 3      /* k: neighbours merged by the spatial pass */
#define PT_RESTIR_RADIUS 16         /* a neighbour is up to 16 pixels away in x and in y */
#define PT_RESTIR_MIN_COSINE 0.906f /* normals more than 25 degrees apart: not merged */
#define PT_RESTIR_DEPTH_RATIO 0.1f  /* depths more than 10% apart: not merged */
#define PT_EVENT_TEMPORAL 1280u     /* dim 0: the temporal merge's number */
#define PT_EVENT_SPATIAL 1281u      /* dims 2k, 2k + 1: neighbour k's offset; 8 + k its number */
#define PT_SPATIAL_CHOICE_DIM 8u

/* A pixel's reservoir as the buffers keep it: the kept sample as the light and the unit normal
 * it was drawn with (pt_light_sample_at rebuilds its point, emission and density to the bit), the
 * sum of the weights, the target of the kept sample at this pixel's shading point of this frame,
 * and M, the candidates it stands for. count 0: the pixel has no reservoir this frame (no
 * diffuse camera hit that reuse applies to); light -1: it has one but keeps no sample. */
struct pt_restir_reservoir {
    int light;
    struct spec_vec3 normal;
    float weight_sum;
    float target;
    int count;
};

/* What pass 1 keeps of the camera ray's diffuse hit, for the passes after it: the shading
 * point (point, normal, albedo) and the hit's distance t along the unit camera ray. */
struct pt_primary_hit {
    struct pt_shading_point at;
    float depth;
};

/* A frame's reservoirs, a structure of arrays: entry p of each is pixel p's (seed 003's
 * ReservoirBuffer). A pass that only needs `count` reads one int of a pixel, not the record. */
struct pt_reservoir_buffers {
    int *light;
    float *normal_x, *normal_y, *normal_z;
    float *weight_sum, *target;
    int *count;
};

/* A frame's camera-ray hits (a G-buffer), a structure of arrays: entry p is pixel p's. */
struct pt_primary_buffers {
    float *point_x, *point_y, *point_z;
    float *normal_x, *normal_y, *normal_z;
    float *albedo_r, *albedo_g, *albedo_b;
    float *depth;
};

/* Every per-pixel array of the estimator, in one block of PT_RESTIR_PIXEL_BYTES a pixel: the
 * camera hits of two frames (frame s writes hits[s % 2] and reads the other), then `current`
 * (passes 1 and 2 write it, pass 3 reads it at the neighbours) and `final` (pass 3 writes it,
 * pass 4 and the next frame's pass 2 read it). The CPU reference, the ray counter and stage p08e
 * lay it out alike with pt_restir_carve. */
#define PT_RESTIR_FLOATS_PER_PIXEL 30 /* two sets of hits: 10 each; two reservoir buffers: 5 each */
#define PT_RESTIR_INTS_PER_PIXEL 4    /* two reservoir buffers: light and count each */
#define PT_RESTIR_PIXEL_BYTES \
    (PT_RESTIR_FLOATS_PER_PIXEL * sizeof(float) + PT_RESTIR_INTS_PER_PIXEL * sizeof(int)) /* 136 */

/* Points every array of hits[2], current and final into block (PT_RESTIR_PIXEL_BYTES x pixels
 * bytes, host or device memory: only its address is used): the 30 float arrays, then the 4 int
 * arrays, pixels entries each. */
static inline void pt_restir_carve(float *block, size_t pixels, struct pt_primary_buffers hits[2],
                                   struct pt_reservoir_buffers *current,
                                   struct pt_reservoir_buffers *final)
{
    float **float_arrays[PT_RESTIR_FLOATS_PER_PIXEL] = {
        &hits[0].point_x,     &hits[0].point_y,     &hits[0].point_z,     &hits[0].normal_x,
        &hits[0].normal_y,    &hits[0].normal_z,    &hits[0].albedo_r,    &hits[0].albedo_g,
        &hits[0].albedo_b,    &hits[0].depth,       &hits[1].point_x,     &hits[1].point_y,
        &hits[1].point_z,     &hits[1].normal_x,    &hits[1].normal_y,    &hits[1].normal_z,
        &hits[1].albedo_r,    &hits[1].albedo_g,    &hits[1].albedo_b,    &hits[1].depth,
        &current->normal_x,   &current->normal_y,   &current->normal_z,   &current->weight_sum,
        &current->target,     &final->normal_x,     &final->normal_y,     &final->normal_z,
        &final->weight_sum,   &final->target};
    for (int a = 0; a < PT_RESTIR_FLOATS_PER_PIXEL; ++a)
        *float_arrays[a] = block + (size_t)a * pixels;
    int *ints = (int *)(block + (size_t)PT_RESTIR_FLOATS_PER_PIXEL * pixels);
    int **int_arrays[PT_RESTIR_INTS_PER_PIXEL] = {&current->light, &current->count, &final->light,
                                                  &final->count};
    for (int a = 0; a < PT_RESTIR_INTS_PER_PIXEL; ++a)
        *int_arrays[a] = ints + (size_t)a * pixels;
}

PT_FN struct pt_restir_reservoir pt_restir_empty(void)
{
    struct pt_restir_reservoir r;
    r.light = -1;
    r.normal = spec_v3(0.0f, 0.0f, 0.0f);
    r.weight_sum = r.target = 0.0f;
    r.count = 0;
    return r;
}

PT_FN struct pt_restir_reservoir pt_reservoir_load(struct pt_reservoir_buffers b, unsigned p)
{
    struct pt_restir_reservoir r;
    r.light = b.light[p];
    r.normal = spec_v3(b.normal_x[p], b.normal_y[p], b.normal_z[p]);
    r.weight_sum = b.weight_sum[p];
    r.target = b.target[p];
    r.count = b.count[p];
    return r;
}

PT_FN void pt_reservoir_store(struct pt_reservoir_buffers b, unsigned p,
                              struct pt_restir_reservoir r)
{
    b.light[p] = r.light;
    b.normal_x[p] = r.normal.x;
    b.normal_y[p] = r.normal.y;
    b.normal_z[p] = r.normal.z;
    b.weight_sum[p] = r.weight_sum;
    b.target[p] = r.target;
    b.count[p] = r.count;
}

PT_FN struct pt_primary_hit pt_primary_load(struct pt_primary_buffers b, unsigned p)
{
    struct pt_primary_hit h;
    h.at.point = spec_v3(b.point_x[p], b.point_y[p], b.point_z[p]);
    h.at.normal = spec_v3(b.normal_x[p], b.normal_y[p], b.normal_z[p]);
    h.at.albedo = spec_v3(b.albedo_r[p], b.albedo_g[p], b.albedo_b[p]);
    h.depth = b.depth[p];
    return h;
}

PT_FN void pt_primary_store(struct pt_primary_buffers b, unsigned p, struct pt_primary_hit h)
{
    b.point_x[p] = h.at.point.x;
    b.point_y[p] = h.at.point.y;
    b.point_z[p] = h.at.point.z;
    b.normal_x[p] = h.at.normal.x;
    b.normal_y[p] = h.at.normal.y;
    b.normal_z[p] = h.at.normal.z;
    b.albedo_r[p] = h.at.albedo.x;
    b.albedo_g[p] = h.at.albedo.y;
    b.albedo_b[p] = h.at.albedo.z;
    b.depth[p] = h.depth;
}

/* ---- One sample at one shading point --------------------------------------------------------- */

/* The target p^ of light sample s at `at`, and its G and colour (albedo times emission): nee's
 * candidate arithmetic (pt_reservoir_add), operation for operation. 0, with G and the colour 0,
 * when s is no sample or the candidate is skipped (either cosine not > 0). */
PT_FN float pt_restir_target(struct pt_shading_point at, struct pt_light_sample s,
                             float *geometry, struct spec_vec3 *colour)
{
    *geometry = 0.0f;
    *colour = spec_v3(0.0f, 0.0f, 0.0f);
    if (s.light < 0)
        return 0.0f;
    struct spec_vec3 w = spec_sub(s.point, at.point);
    float d2 = spec_dot(w, w);
    float distance = sqrtf(d2);
    float cos_x = spec_dot(at.normal, w) / distance;
    float cos_y = -spec_dot(s.normal, w) / distance;
    if (!(cos_x > 0.0f) || !(cos_y > 0.0f))
        return 0.0f;
    *geometry = cos_x * cos_x * cos_x * cos_y / d2;
    *colour = spec_mul(at.albedo, s.emission);
    return (colour->x + colour->y + colour->z) * *geometry;
}

/* The sample a reservoir keeps, rebuilt from its light and normal (none when light is -1). */
PT_FN struct pt_light_sample pt_restir_sample(const struct pt_world *world,
                                              struct pt_restir_reservoir r)
{
    if (r.light < 0)
        return pt_light_sample_none();
    return pt_light_sample_at(world->lights[r.light], r.light, r.normal, world->light_count);
}

/* ---- Building and merging reservoirs --------------------------------------------------------- */

/* Offers a candidate of the initial RIS: pt_reservoir_add's rule (weight p^ * inv_pdf, skipped
 * unless > 0; kept when choice * wsum < weight), keeping the sample as its light and normal. */
PT_FN void pt_restir_add(struct pt_restir_reservoir *r, struct pt_shading_point at,
                         struct pt_light_sample s, float choice)
{
    float geometry;
    struct spec_vec3 colour;
    float target = pt_restir_target(at, s, &geometry, &colour);
    if (!(target > 0.0f))
        return;
    float weight = target * s.inverse_pdf;
    if (!(weight > 0.0f))
        return;
    r->weight_sum = r->weight_sum + weight;
    if (choice * r->weight_sum < weight) {
        r->light = s.light;
        r->normal = s.normal;
        r->target = target;
    }
}

/* The initial reservoir at the camera ray's diffuse hit `at` of sample `sample` of pixel
 * `pixel`: nee's eight candidates of that hit (keys (pixel, sample, 256 + 64 c + 1)) with nee's
 * numbers (key (pixel, sample, 129), dim c), in order; M = 8 whether or not one was kept. */
PT_FN struct pt_restir_reservoir pt_restir_initial(const struct pt_world *world, unsigned pixel,
                                                   unsigned sample, struct pt_shading_point at)
{
    struct pt_restir_reservoir r = pt_restir_empty();
    for (int c = 0; c < PT_NEE_CANDIDATES; ++c)
        pt_restir_add(&r, at,
                      pt_candidate(world, PT_ESTIMATOR_NEE, pixel, sample, PT_RESTIR_EVENT, c),
                      pt_reservoir_choice(pixel, sample, PT_RESTIR_EVENT, c));
    r.count = PT_NEE_CANDIDATES;
    return r;
}

/* Merges reservoir `other`, whose kept sample (rebuilt) is s, into r at r's shading point `at`,
 * as `count` candidates (other's M, or fewer: the temporal cap). Its weight is
 * (p^_at(s) * W) * count with W = wsum' / (M' * p^'), other's contribution weight; skipped
 * unless > 0; kept when choice * wsum < weight. M grows by `count` whether or not s is kept or
 * even seen from `at` (ReSTIR's 1/M weights: biased, SPEC.md). A reservoir of M 0 changes
 * nothing. */
PT_FN void pt_restir_merge(struct pt_restir_reservoir *r, struct pt_shading_point at,
                           struct pt_restir_reservoir other, struct pt_light_sample s, int count,
                           float choice)
{
    if (other.count <= 0)
        return;
    if (other.light >= 0) {
        float geometry;
        struct spec_vec3 colour;
        float target = pt_restir_target(at, s, &geometry, &colour);
        if (target > 0.0f) {
            float contribution_weight = other.weight_sum / ((float)other.count * other.target);
            float weight = target * contribution_weight * (float)count;
            if (weight > 0.0f) {
                r->weight_sum = r->weight_sum + weight;
                if (choice * r->weight_sum < weight) {
                    r->light = other.light;
                    r->normal = other.normal;
                    r->target = target;
                }
            }
        }
    }
    r->count = r->count + count;
}

/* ---- The passes, one pixel each -------------------------------------------------------------- */

/* Pass 1: the camera ray of sample `sample` of pixel (i, j). When the world has lights and paths
 * of two segments or more, and the ray's closest hit is diffuse: that hit in *hit and the
 * initial reservoir. Else (a miss, a lamp, a mirror, metal or glass, no lights, max_depth 1):
 * *hit zero and the empty reservoir (M 0): the pixel takes no part in reuse this frame. */
PT_FN struct pt_restir_reservoir pt_restir_primary(const struct pt_world *world, int i, int j,
                                                   unsigned sample, struct pt_primary_hit *hit)
{
    hit->at.point = hit->at.normal = hit->at.albedo = spec_v3(0.0f, 0.0f, 0.0f);
    hit->depth = 0.0f;
    if (world->light_count == 0 || world->max_depth < 2)
        return pt_restir_empty();
    unsigned pixel = (unsigned)j * (unsigned)world->width + (unsigned)i;
    struct spec_vec3 origin, direction;
    pt_camera_ray(world->camera, world->width, world->height, i, j, sample, &origin, &direction);
    float t;
    int closest = pt_closest_hit(world, origin, direction, &t);
    if (closest < 0 || world->materials[closest].kind != PT_DIFFUSE)
        return pt_restir_empty();
    pt_hit_surface(world->spheres[closest], origin, direction, t, &hit->at.point,
                   &hit->at.normal);
    hit->at.albedo = world->materials[closest].colour;
    hit->depth = t;
    return pt_restir_initial(world, pixel, sample, hit->at);
}

/* Whether a neighbour's hit is like the receiver's: normals at most 25 degrees apart
 * (N.N' >= 0.906) and depths at most 10% apart (|d' - d| <= 0.1 d). */
PT_FN int pt_restir_similar(struct pt_primary_hit receiver, struct pt_primary_hit neighbour)
{
    if (spec_dot(receiver.at.normal, neighbour.at.normal) < PT_RESTIR_MIN_COSINE)
        return 0;
    return !(fabsf(neighbour.depth - receiver.depth) > PT_RESTIR_DEPTH_RATIO * receiver.depth);
}

/* Pass 2: merges the reservoir `previous` that pixel `pixel` ended frame sample - 1 with (after
 * that frame's spatial pass), made at that frame's hit `before`, into its reservoir of this
 * frame, `current`, made at `here`; previous counts for at most PT_RESTIR_COUNT_CAP of its M,
 * and the merge's number is number 0 of key (pixel, sample, 1280). Nothing in frame 0, nor when
 * either frame has no reservoir (M 0) or the two hits are unlike (pt_restir_similar: the pixel
 * saw another surface). */
PT_FN struct pt_restir_reservoir pt_restir_temporal(const struct pt_world *world,
                                                    struct pt_primary_hit here,
                                                    struct pt_restir_reservoir current,
                                                    struct pt_primary_hit before,
                                                    struct pt_restir_reservoir previous,
                                                    unsigned pixel, unsigned sample)
{
    if (sample == 0 || current.count == 0 || previous.count == 0 ||
        !pt_restir_similar(here, before))
        return current;
    int count = previous.count < PT_RESTIR_COUNT_CAP ? previous.count : PT_RESTIR_COUNT_CAP;
    pt_restir_merge(&current, here.at, previous, pt_restir_sample(world, previous), count,
                    pt_random(pixel, sample, PT_EVENT_TEMPORAL, 0));
    return current;
}

/* Neighbour k's offset along one axis (dim 2k: x, 2k + 1: y): -16 to 16, from number dim of key
 * (pixel, sample, 1281): min((int)(u * 33), 32) - 16. */
PT_FN int pt_restir_offset(unsigned pixel, unsigned sample, unsigned dim)
{
    float u = pt_random(pixel, sample, PT_EVENT_SPATIAL, dim);
    int step = (int)(u * (float)(2 * PT_RESTIR_RADIUS + 1));
    return (step < 2 * PT_RESTIR_RADIUS ? step : 2 * PT_RESTIR_RADIUS) - PT_RESTIR_RADIUS;
}

/* Pass 3: pixel (i, j)'s reservoir after the temporal pass, from `reservoirs` (every pixel's,
 * after pass 2: never the buffer this pass writes), with k = 0, 1, 2 neighbours merged in that
 * order: neighbour k at (i + dx, j + dy), the offsets of pt_restir_offset, skipped when it is
 * outside the image, is the pixel itself, has no reservoir (M 0) or a hit unlike this one
 * (pt_restir_similar); else merged with all its M and number 8 + k of key (pixel, sample, 1281).
 * A neighbour may come twice. */
PT_FN struct pt_restir_reservoir pt_restir_spatial(const struct pt_world *world,
                                                   struct pt_primary_buffers hits,
                                                   struct pt_reservoir_buffers reservoirs, int i,
                                                   int j, unsigned sample)
{
    unsigned pixel = (unsigned)j * (unsigned)world->width + (unsigned)i;
    struct pt_restir_reservoir r = pt_reservoir_load(reservoirs, pixel);
    if (r.count == 0)
        return r;
    struct pt_primary_hit here = pt_primary_load(hits, pixel);
    for (int k = 0; k < PT_RESTIR_NEIGHBOURS; ++k) {
        int x = i + pt_restir_offset(pixel, sample, 2u * (unsigned)k);
        int y = j + pt_restir_offset(pixel, sample, 2u * (unsigned)k + 1u);
        if (x < 0 || x >= world->width || y < 0 || y >= world->height || (x == i && y == j))
            continue;
        unsigned q = (unsigned)y * (unsigned)world->width + (unsigned)x;
        if (reservoirs.count[q] == 0)
            continue;
        if (!pt_restir_similar(here, pt_primary_load(hits, q)))
            continue;
        struct pt_restir_reservoir other = pt_reservoir_load(reservoirs, q);
        pt_restir_merge(&r, here.at, other, pt_restir_sample(world, other), other.count,
                        pt_random(pixel, sample, PT_EVENT_SPATIAL,
                                  PT_SPATIAL_CHOICE_DIM + (unsigned)k));
    }
    return r;
}

/* What a visible kept sample of reservoir r brings at its shading point (G and colour of that
 * sample there, pt_restir_target): throughput times colour times (((2 / pi) * G) * wsum) /
 * (M * p^). With M 8 and nothing merged, nee's pt_nee_contribution to the bit. */
PT_FN struct spec_vec3 pt_restir_contribution(struct pt_restir_reservoir r, float geometry,
                                              struct spec_vec3 colour,
                                              struct spec_vec3 throughput)
{
    float scale = (2.0f / PT_PI) * geometry * r.weight_sum / ((float)r.count * r.target);
    return spec_mul(throughput, spec_scale(scale, colour));
}

/* Nee's path for sample `sample` of pixel (i, j) (estimator nee or light-pool, at least one
 * light): at each diffuse hit but the last segment's, what one light sample chosen among
 * PT_NEE_CANDIDATES brings (pt_next_event), and no light that a ray from a diffuse hit meets:
 * next-event estimation counted it. With `primary`, the camera ray's diffuse hit (segment 0)
 * instead traces one shadow ray to the sample that reservoir keeps, if it keeps one (pass 4 of
 * the reservoirs estimator). *rays counts every ray traced, shadow rays included. */
PT_FN struct spec_vec3 pt_trace_nee_path(const struct pt_world *world, int estimator, int i, int j,
                                         unsigned sample,
                                         const struct pt_restir_reservoir *primary, int *rays)
{
    unsigned pixel = (unsigned)j * (unsigned)world->width + (unsigned)i;
    struct spec_vec3 origin, direction;
    pt_camera_ray(world->camera, world->width, world->height, i, j, sample, &origin, &direction);
    struct spec_vec3 throughput = spec_v3(1.0f, 1.0f, 1.0f);
    struct spec_vec3 radiance = spec_v3(0.0f, 0.0f, 0.0f);
    int after_diffuse = 0;
    *rays = 0;
    for (int segment = 0; segment < world->max_depth; ++segment) {
        float t;
        int hit = pt_closest_hit(world, origin, direction, &t);
        ++*rays;
        if (hit < 0)
            return spec_add(radiance, spec_mul(throughput, world->sky));
        struct pt_material material = world->materials[hit];
        if (material.kind == PT_LIGHT)
            return after_diffuse ? radiance
                                 : spec_add(radiance, spec_mul(throughput, material.colour));
        struct pt_scatter scatter;
        pt_scatter_hit(material, world->spheres[hit], origin, direction, t, pixel, sample,
                       segment, &scatter);
        after_diffuse = material.kind == PT_DIFFUSE;
        if (after_diffuse && segment + 1 < world->max_depth) {
            unsigned event = (unsigned)segment + 1u;
            struct pt_shading_point at;
            pt_hit_surface(world->spheres[hit], origin, direction, t, &at.point, &at.normal);
            at.albedo = material.colour;
            if (segment == 0 && primary) {
                if (primary->light >= 0) {
                    struct spec_vec3 shadow_origin =
                        spec_add(at.point, spec_scale(PT_SURFACE_OFFSET, at.normal));
                    float shadow_t;
                    struct pt_light_sample s = pt_restir_sample(world, *primary);
                    float geometry;
                    struct spec_vec3 colour;
                    pt_restir_target(at, s, &geometry, &colour);
                    int blocker = pt_closest_hit(world, shadow_origin,
                                                 spec_sub(s.point, shadow_origin), &shadow_t);
                    ++*rays;
                    if (blocker == s.sphere)
                        radiance = spec_add(radiance, pt_restir_contribution(*primary, geometry,
                                                                             colour, throughput));
                }
            } else {
                radiance = spec_add(radiance, pt_next_event(world, estimator, pixel, sample,
                                                            event, at, throughput, rays));
            }
        }
        if (scatter.event == PT_ABSORBED)
            break;
        throughput = spec_mul(throughput, scatter.attenuation);
        origin = scatter.origin;
        direction = scatter.direction;
    }
    return radiance;
}

/* One sample with the given estimator of pt_math.h (enum pt_estimator); *rays counts every ray
 * traced, shadow rays included. The path estimator is pt_trace_sample; nee and light-pool (with
 * at least one light) are pt_trace_nee_path. */
PT_FN struct spec_vec3 pt_trace_sample_with(const struct pt_world *world, int estimator, int i,
                                            int j, unsigned sample, int *rays)
{
    if (estimator == PT_ESTIMATOR_PATH || world->light_count == 0)
        return pt_trace_sample(world, i, j, sample, rays);
    return pt_trace_nee_path(world, estimator, i, j, sample, NULL, rays);
}

/* Pass 4: sample `sample` of pixel (i, j) as nee makes it (pt_trace_sample_with), but for the
 * next-event estimation at the camera ray's diffuse hit (segment 0 < max_depth - 1), which is
 * one shadow ray to the sample `primary` (the pixel's reservoir after pass 3) keeps, if it keeps
 * one. Without lights: the path estimator. tests/test_pt_reference.c checks that with an
 * untouched initial reservoir the two agree to the bit. */
PT_FN struct spec_vec3 pt_restir_trace_sample(const struct pt_world *world, int i, int j,
                                              unsigned sample, struct pt_restir_reservoir primary,
                                              int *rays)
{
    if (world->light_count == 0)
        return pt_trace_sample(world, i, j, sample, rays);
    return pt_trace_nee_path(world, PT_ESTIMATOR_NEE, i, j, sample, &primary, rays);
}

#ifdef __cplusplus
}
#endif

#endif
