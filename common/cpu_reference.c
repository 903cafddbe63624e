#include "cpu_reference.h"

#include "parallel_rows.h"

struct frame {
    struct spec_world world;
    int width, height;
    struct image *image;
};

static unsigned long long render_row(int j, void *context)
{
    const struct frame *frame = context;
    unsigned char *row = frame->image->rgb + (size_t)j * (size_t)frame->width * 3;
    unsigned long long rays = 0;
    for (int i = 0; i < frame->width; ++i) {
        int pixel_rays;
        struct spec_vec3 colour =
            spec_trace_pixel(&frame->world, i, j, frame->width, frame->height, &pixel_rays);
        row[i * 3 + 0] = image_channel_from_float(colour.x);
        row[i * 3 + 1] = image_channel_from_float(colour.y);
        row[i * 3 + 2] = image_channel_from_float(colour.z);
        rays += (unsigned long long)pixel_rays;
    }
    return rays;
}

unsigned long long cpu_reference_render(const struct scene *scene, int width, int height,
                                        int threads, struct image *image)
{
    struct frame frame;
    frame.world = scene_world(scene);
    frame.width = width;
    frame.height = height;
    frame.image = image;
    return parallel_rows(height, threads, render_row, &frame);
}

struct spec_vec3 cpu_reference_pixel(const struct scene *scene, int width, int height, int i, int j)
{
    struct spec_world world = scene_world(scene);
    int rays;
    return spec_trace_pixel(&world, i, j, width, height, &rays);
}
