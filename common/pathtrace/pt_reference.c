#include "pathtrace/pt_reference.h"

#include "parallel_rows.h"

struct frame {
    const struct pt_world *world;
    int estimator;
    int samples;
    unsigned long long *sums;
};

static unsigned long long render_row(int j, void *context)
{
    const struct frame *frame = context;
    const struct pt_world *world = frame->world;
    unsigned long long rays = 0;
    for (int i = 0; i < world->width; ++i) {
        unsigned long long *sum = frame->sums + ((size_t)j * (size_t)world->width + (size_t)i) * 3;
        for (int s = 0; s < frame->samples; ++s) {
            int path_rays;
            struct spec_vec3 c =
                pt_trace_sample_with(world, frame->estimator, i, j, (unsigned)s, &path_rays);
            sum[0] += pt_fixed(c.x);
            sum[1] += pt_fixed(c.y);
            sum[2] += pt_fixed(c.z);
            rays += (unsigned long long)path_rays;
        }
    }
    return rays;
}

unsigned long long pt_reference_render(const struct pt_world *world, int estimator, int samples,
                                       int threads, unsigned long long *sums)
{
    struct frame frame = {world, estimator, samples, sums};
    return parallel_rows(world->height, threads, render_row, &frame);
}
