/* The main track's half of a stage's main() (track.h): SPEC.md's scene of spheres, the render
 * job, the checks a main stage needs (the spheres it holds, its block size), the ray count; and
 * what a main stage calls when its frame is back on the host (rt_stage.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/count_rays.h"
#include "image/frame_out.h"
#include "runtime/gpu.h"
#include "image/image.h"
#include "image/png_encode.h"
#include "raytrace/rt_stage.h"
#include "runtime/track.h"

const char *const track_options = "";

struct track_run {
    struct scene scene;
    struct render_job job;
};

static struct track_run the_run;

void track_print_help(FILE *out)
{
    (void)out;
}

struct track_run *track_prepare(const struct options *options, struct report *report, char *error,
                                size_t error_size)
{
    struct track_run *run = &the_run;
    struct scene *scene = &run->scene;
    if (scene_load(options->scene_path, scene, error, error_size))
        return NULL;
    if (scene->sphere_count > stage_info.max_spheres) {
        snprintf(error, error_size, "%s: %d spheres, but stage %s holds at most %d (%s)",
                 options->scene_path, scene->sphere_count, stage_manifest.name,
                 stage_info.max_spheres, stage_info.max_spheres_why);
        scene_free(scene);
        return NULL;
    }
    /* A kernel built with __launch_bounds__ cannot be launched with bigger blocks: say so
     * before touching the GPU, as for any other bad option. */
    int block_x = options->block_x ? options->block_x : stage_info.block_x;
    int block_y = options->block_y ? options->block_y : stage_info.block_y;
    if (stage_info.max_block_threads > 0 && block_x * block_y > stage_info.max_block_threads) {
        snprintf(error, error_size,
                 "--block %dx%d is %d threads, over the %d this stage's kernel is built for (its "
                 "__launch_bounds__)",
                 block_x, block_y, block_x * block_y, stage_info.max_block_threads);
        scene_free(scene);
        return NULL;
    }
    struct render_job *job = &run->job;
    job->scene = scene;
    job->width = options->width ? options->width : scene->width;
    job->height = options->height ? options->height : scene->height;
    job->block_x = block_x;
    job->block_y = block_y;
    job->report = report;
    job->output_path = options->output_path;
    job->rays_per_thread = options->rays_per_thread ? options->rays_per_thread
                           : stage_info.rays_per_thread > 0 ? stage_info.rays_per_thread : 1;
    job->frames = options->frames ? options->frames : 1;
    job->device = options->device;
    job->gpus = options->gpus;
    job->rendezvous = options->rendezvous;
    job->rendezvous_timeout = options->rendezvous_timeout;
    report->width = job->width;
    report->height = job->height;
    report->spheres = scene->sphere_count;
    report->block_x = job->block_x;
    report->block_y = job->block_y;
    return run;
}

/* The float frame, and the 8-bit image when one is written. */
static size_t frame_bytes(const struct track_run *run)
{
    return (size_t)run->job.width * (size_t)run->job.height * 3 * sizeof(float);
}

size_t track_host_bytes(const struct track_run *run)
{
    return frame_bytes(run) + (run->job.output_path ? frame_bytes(run) / sizeof(float) : 0);
}

size_t track_device_bytes(const struct track_run *run)
{
    return frame_bytes(run) + (size_t)run->scene.sphere_count * sizeof(struct spec_sphere);
}

void track_render(struct track_run *run)
{
    stage_render(&run->job);
    run->job.report->rays_traced = gpu_count_rays(&run->scene, run->job.width, run->job.height);
}

void track_free(struct track_run *run)
{
    scene_free(&run->scene);
}

void render_job_frame_ready(struct render_job *job, const float *rgb)
{
    job->report->host_memory = gpu_host_memory_kind(rgb);
    if (!job->output_path)
        return;
    double start = timer_now_us();
    struct image image;
    frame_image_alloc_or_exit(&image, job->width, job->height, job->output_path);
    image_from_float_rgb(&image, rgb);
    frame_write_or_exit(job->output_path, &image);
    image_free(&image);
    frame_written(job->report, job->output_path, start);
}

void render_job_frame_ready_rgb8(struct render_job *job, const unsigned char *rgb)
{
    frame_ready_rgb8(job->report, job->output_path, job->width, job->height, rgb);
}

struct png_stream *render_job_stream_png(struct render_job *job, const unsigned char *rgb,
                                         int band_rows)
{
    const char *path = job->output_path;
    size_t length = path ? strlen(path) : 0;
    if (!path || (length >= 4 && strcmp(path + length - 4, ".ppm") == 0))
        return NULL;
    double start = timer_now_us();
    struct image image = {job->width, job->height, (unsigned char *)rgb}; /* read, never written */
    struct png_options options = png_default_options();
    char reason[IMAGE_ERROR_BYTES];
    struct png_stream *stream =
        png_stream_start(&image, band_rows, &options, reason, sizeof reason);
    if (!stream) {
        fprintf(stderr, "%s: error: %s: writing the image failed: %s\n", stage_manifest.name, path,
                reason);
        exit(1);
    }
    report_metric(job->report, "image_encoder_start", timer_now_us() - start, "us");
    report_metric(job->report, "image_chunks", png_stream_chunk_count(stream), "chunks");
    return stream;
}

void render_job_frame_ready_streamed(struct render_job *job, const unsigned char *rgb,
                                     struct png_stream *stream, double frame_on_host_us)
{
    job->report->host_memory = gpu_host_memory_kind(rgb);
    unsigned char *png;
    size_t png_bytes;
    char reason[IMAGE_ERROR_BYTES], error[IMAGE_ERROR_BYTES];
    if (png_stream_finish(stream, &png, &png_bytes, reason, sizeof reason)) {
        fprintf(stderr, "%s: error: %s: writing the image failed: %s\n", stage_manifest.name,
                job->output_path, reason);
        exit(1);
    }
    double encoded = timer_now_us();
    if (image_write_encoded(job->output_path, png, png_bytes, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_manifest.name, error);
        exit(1);
    }
    double written = timer_now_us();
    free(png);
    job->report->image_write_us = written - frame_on_host_us;
    job->report->image_path = job->output_path;
    report_metric(job->report, "image_encode_left", encoded - frame_on_host_us, "us");
}
