/* pt_closest_hit walks a world's tree when it has one (pt_math.h). */
#define PT_WORLD_MAY_HAVE_A_TREE
#include "pathtrace/pt_reference.h"

#include <stdint.h>
#include <stdlib.h>

#include "runtime/parallel_rows.h"
#include "pathtrace/pt_bvh.h"
#include "pathtrace/pt_reservoirs.h"

struct frame {
    const struct pt_world *world;
    int estimator;
    int samples;
    unsigned long long *sums;
};

static void add_sample(unsigned long long *sum, struct spec_vec3 c)
{
    sum[0] += pt_fixed(c.x);
    sum[1] += pt_fixed(c.y);
    sum[2] += pt_fixed(c.z);
}

static unsigned long long render_row(int j, void *context)
{
    const struct frame *frame = context;
    const struct pt_world *world = frame->world;
    unsigned long long rays = 0;
    for (int i = 0; i < world->width; ++i) {
        unsigned long long *sum = frame->sums + ((size_t)j * (size_t)world->width + (size_t)i) * 3;
        for (int s = 0; s < frame->samples; ++s) {
            int path_rays;
            add_sample(sum, pt_trace_sample_with(world, frame->estimator, i, j, (unsigned)s,
                                                 &path_rays));
            rays += (unsigned long long)path_rays;
        }
    }
    return rays;
}

/* ---- reservoirs: frame by frame, pass by pass (SPEC.md section 6) ---------------------------- */

/* Two sets of camera-ray hits, hits[s % 2] frame s's and the other frame s - 1's, and two
 * reservoir buffers: `current` (pass 1 writes a pixel's initial reservoir, pass 2 turns it into
 * the temporal one in place, pass 3 reads it for the pixel and its neighbours) and `final` (pass
 * 3 writes it; pass 4 shades with it and the next frame's pass 2 merges it: frame s + 1 reuses
 * frame s's reservoirs after spatial reuse). */
struct reservoir_frame {
    const struct pt_world *world;
    unsigned sample;
    struct pt_primary_buffers hits[2];
    struct pt_reservoir_buffers current, final;
    unsigned long long *sums;
};

size_t pt_reference_pixel_bytes(int estimator)
{
    if (estimator != PT_ESTIMATOR_RESERVOIRS)
        return 0;
    return PT_RESTIR_PIXEL_BYTES;
}

/* One block for every array (NULL when it cannot be had): a size the machine cannot hold is
 * refused at once rather than met page by page. */
static void *allocate_buffers(struct reservoir_frame *f, size_t pixels)
{
    size_t bytes = PT_RESTIR_PIXEL_BYTES;
    if (pixels > SIZE_MAX / bytes)
        return NULL;
    float *floats = malloc(pixels * bytes);
    if (!floats)
        return NULL;
    pt_restir_carve(floats, pixels, f->hits, &f->current, &f->final);
    return floats;
}

/* Passes 1 and 2, which read and write only their own pixel. */
static unsigned long long primary_and_temporal_row(int j, void *context)
{
    const struct reservoir_frame *f = context;
    const struct pt_world *world = f->world;
    struct pt_primary_buffers hits = f->hits[f->sample % 2];
    struct pt_primary_buffers before = f->hits[(f->sample + 1) % 2];
    for (int i = 0; i < world->width; ++i) {
        unsigned p = (unsigned)j * (unsigned)world->width + (unsigned)i;
        struct pt_primary_hit hit;
        struct pt_restir_reservoir r = pt_restir_primary(world, i, j, f->sample, &hit);
        struct pt_restir_reservoir previous = pt_reservoir_load(f->final, p);
        if (previous.count > 0) /* none in frame 0, whose `before` was never written */
            r = pt_restir_temporal(world, hit, r, pt_primary_load(before, p), previous, p,
                                   f->sample);
        pt_primary_store(hits, p, hit);
        pt_reservoir_store(f->current, p, r);
    }
    return 0;
}

/* Passes 3 and 4: pass 3 reads `current` (every pixel's passes 2 are done) and writes its own
 * pixel of `final`, which pass 4 reads. */
static unsigned long long spatial_and_shade_row(int j, void *context)
{
    const struct reservoir_frame *f = context;
    const struct pt_world *world = f->world;
    unsigned long long rays = 0;
    for (int i = 0; i < world->width; ++i) {
        unsigned p = (unsigned)j * (unsigned)world->width + (unsigned)i;
        struct pt_restir_reservoir r =
            pt_restir_spatial(world, f->hits[f->sample % 2], f->current, i, j, f->sample);
        pt_reservoir_store(f->final, p, r);
        int path_rays;
        add_sample(f->sums + (size_t)p * 3,
                   pt_restir_trace_sample(world, i, j, f->sample, r, &path_rays));
        rays += (unsigned long long)path_rays;
    }
    return rays;
}

static unsigned long long render_reservoirs(const struct pt_world *world, int samples,
                                            int threads, unsigned long long *sums)
{
    struct reservoir_frame f;
    size_t pixels = (size_t)world->width * (size_t)world->height;
    void *block = allocate_buffers(&f, pixels);
    if (!block)
        return PT_REFERENCE_OUT_OF_MEMORY;
    f.world = world;
    f.sums = sums;
    for (size_t p = 0; p < pixels; ++p)
        pt_reservoir_store(f.final, (unsigned)p, pt_restir_empty());
    unsigned long long rays = 0;
    for (int s = 0; s < samples; ++s) {
        f.sample = (unsigned)s;
        parallel_rows(world->height, threads, primary_and_temporal_row, &f);
        rays += parallel_rows(world->height, threads, spatial_and_shade_row, &f);
    }
    free(block);
    return rays;
}

unsigned long long pt_reference_render(const struct pt_world *world, int estimator, int samples,
                                       int threads, unsigned long long *sums)
{
    /* Many spheres: through a hierarchy, which finds the same spheres (pt_closest_hit), much
     * sooner; without memory for it, every sphere. */
    struct pt_world searched = *world;
    struct bvh bvh = {0};
    if (!world->bvh.nodes && world->sphere_count > PT_BVH_FROM &&
        pt_bvh_build(world->spheres, world->sphere_count, &bvh) == 0)
        searched.bvh = bvh_view(&bvh);
    unsigned long long rays;
    if (estimator == PT_ESTIMATOR_RESERVOIRS) {
        rays = render_reservoirs(&searched, samples, threads, sums);
    } else {
        struct frame frame = {&searched, estimator, samples, sums};
        rays = parallel_rows(world->height, threads, render_row, &frame);
    }
    bvh_free(&bvh);
    return rays;
}
