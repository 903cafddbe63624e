#include "raytrace/cpu_reference.h"

#include "raytrace/bvh.h"
#include "runtime/parallel_rows.h"

struct frame {
    struct spec_world world;
    const struct spec_bvh *bvh; /* NULL: every sphere */
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
            spec_trace_pixel(&frame->world, frame->bvh, i, j, frame->width, frame->height, &pixel_rays);
        row[i * 3 + 0] = image_channel_from_float(colour.x);
        row[i * 3 + 1] = image_channel_from_float(colour.y);
        row[i * 3 + 2] = image_channel_from_float(colour.z);
        rays += (unsigned long long)pixel_rays;
    }
    return rays;
}

static unsigned long long render(const struct scene *scene, const struct spec_bvh *bvh, int width,
                                 int height, int threads, struct image *image)
{
    struct frame frame;
    frame.world = scene_world(scene);
    frame.bvh = bvh;
    frame.width = width;
    frame.height = height;
    frame.image = image;
    return parallel_rows(height, threads, render_row, &frame);
}

unsigned long long cpu_reference_render_every_sphere(const struct scene *scene, int width,
                                                     int height, int threads, struct image *image)
{
    return render(scene, NULL, width, height, threads, image);
}

unsigned long long cpu_reference_render(const struct scene *scene, int width, int height,
                                        int threads, struct image *image)
{
    struct bvh bvh;
    /* Out of memory for the hierarchy: the loops give the same image, only slower. */
    if (scene->sphere_count <= CPU_REFERENCE_BVH_FROM || bvh_build(scene->spheres, scene->sphere_count, &bvh))
        return render(scene, NULL, width, height, threads, image);
    struct spec_bvh view = bvh_view(&bvh);
    unsigned long long rays = render(scene, &view, width, height, threads, image);
    bvh_free(&bvh);
    return rays;
}

struct spec_vec3 cpu_reference_pixel(const struct scene *scene, int width, int height, int i, int j)
{
    struct spec_world world = scene_world(scene);
    int rays;
    return spec_trace_pixel(&world, NULL, i, j, width, height, &rays);
}
