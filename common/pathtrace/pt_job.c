/* What every stage of the track and its kernel benchmark share: the image made from the pixel
 * sums (SPEC.md section 4) and the check that the stage holds the scene. In the library rather
 * than in pt_stage_main.c so that the kernel benchmark links the same render.o. */
#include <stdio.h>
#include <stdlib.h>

#include "image/frame_out.h"
#include "runtime/gpu.h"
#include "image/image.h"
#include "pathtrace/pt_stage.h"

void pt_render_job_sums_ready(struct pt_render_job *job, const unsigned long long *sums)
{
    job->report->host_memory = gpu_host_memory_kind(sums);
    if (!job->output_path)
        return;
    double start = timer_now_us();
    struct image image;
    frame_image_alloc_or_exit(&image, job->width, job->height, job->output_path);
    size_t channels = (size_t)job->width * (size_t)job->height * 3;
    for (size_t c = 0; c < channels; ++c)
        image.rgb[c] = pt_pixel_channel(sums[c], job->samples);
    frame_write_or_exit(job->output_path, &image);
    image_free(&image);
    frame_written(job->report, job->output_path, start);
}

void pt_render_job_frame_ready_rgb8(struct pt_render_job *job, const unsigned char *rgb)
{
    frame_ready_rgb8(job->report, job->output_path, job->width, job->height, rgb);
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
