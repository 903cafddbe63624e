/* What every stage of the track and its kernel benchmark share: the image made from the pixel
 * sums (SPEC.md section 4) and the check that the stage holds the scene. In the library rather
 * than in pt_stage_main.c so that the kernel benchmark links the same render.o. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "image.h"
#include "pathtrace/pt_stage.h"

static void write_image_or_exit(struct pt_render_job *job, const struct image *image)
{
    char error[IMAGE_ERROR_BYTES];
    if (image_write(job->output_path, image, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", cuda_check_program, error);
        exit(1);
    }
}

void pt_render_job_sums_ready(struct pt_render_job *job, const unsigned long long *sums)
{
    job->report->host_memory = gpu_host_memory_kind(sums);
    if (!job->output_path)
        return;
    double start = timer_now_us();
    struct image image;
    if (image_alloc(&image, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for the 8-bit image of %s\n",
                cuda_check_program, job->output_path);
        exit(1);
    }
    size_t channels = (size_t)job->width * (size_t)job->height * 3;
    for (size_t c = 0; c < channels; ++c)
        image.rgb[c] = pt_pixel_channel(sums[c], job->samples);
    write_image_or_exit(job, &image);
    image_free(&image);
    job->report->image_write_us = timer_now_us() - start;
    job->report->image_path = job->output_path;
}

void pt_render_job_frame_ready_rgb8(struct pt_render_job *job, const unsigned char *rgb)
{
    job->report->host_memory = gpu_host_memory_kind(rgb);
    if (!job->output_path)
        return;
    double start = timer_now_us();
    struct image image = {job->width, job->height, (unsigned char *)rgb}; /* written, not freed */
    write_image_or_exit(job, &image);
    job->report->image_write_us = timer_now_us() - start;
    job->report->image_path = job->output_path;
}

int pt_stage_holds_scene(const char *scene_path, const struct pt_scene *scene, char *error,
                         size_t error_size)
{
    if (scene->sphere_count <= stage_info.max_spheres)
        return 0;
    snprintf(error, error_size, "%.200s: %d spheres, but stage %s holds at most %d (%s)",
             scene_path, scene->sphere_count, stage_manifest.name, stage_info.max_spheres,
             stage_info.max_spheres_why);
    return -1;
}
