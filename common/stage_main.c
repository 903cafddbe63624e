/* main() of every stage: input checked before the GPU is touched, then the stage's rendering,
 * then the report. Exit status: 0 rendered, 1 CUDA or system failure, 2 bad input or no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "host_pages.h"
#include "image.h"
#include "options.h"
#include "stage.h"

#define ERROR_BYTES 1024

static int input_error(const char *message)
{
    fprintf(stderr, "%s: error: %s\n", stage_info.name, message);
    return 2;
}

static void write_image_or_exit(struct render_job *job, const struct image *image)
{
    char error[IMAGE_ERROR_BYTES];
    if (image_write(job->output_path, image, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", stage_info.name, error);
        exit(1);
    }
}

void render_job_frame_ready(struct render_job *job, const float *rgb)
{
    job->report->host_memory = gpu_host_memory_kind(rgb);
    if (!job->output_path)
        return;
    double start = timer_now_us();
    struct image image;
    if (image_alloc(&image, job->width, job->height)) {
        fprintf(stderr, "%s: error: out of host memory for the 8-bit image of %s\n",
                stage_info.name, job->output_path);
        exit(1);
    }
    image_from_float_rgb(&image, rgb);
    write_image_or_exit(job, &image);
    image_free(&image);
    job->report->image_write_us = timer_now_us() - start;
    job->report->image_path = job->output_path;
}

void render_job_frame_ready_rgb8(struct render_job *job, const unsigned char *rgb)
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

int main(int argc, char **argv)
{
    cuda_check_program = stage_info.name;
    unsigned accepted = OPTION_GPU | (stage_info.block_is_option ? OPTION_BLOCK : 0) |
                        (stage_info.extra_options & (OPTION_RAYS_PER_THREAD | OPTION_FRAMES));
    char default_block[32];
    snprintf(default_block, sizeof default_block, "%dx%d", stage_info.block_x, stage_info.block_y);

    struct options options;
    char error[ERROR_BYTES];
    if (options_parse(argc, argv, accepted, &options, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s (see --help)\n", stage_info.name, error);
        return 2;
    }
    if (options.help) {
        printf("%s: %s\n\n", stage_info.name, stage_info.lesson);
        options_print_usage(stdout, argv[0], accepted, default_block, stage_info.rays_per_thread);
        return 0;
    }

    struct scene scene;
    if (scene_load(options.scene_path, &scene, error, sizeof error))
        return input_error(error);
    if (scene.sphere_count > stage_info.max_spheres) {
        snprintf(error, sizeof error, "%s: %d spheres, but stage %s holds at most %d (%s)",
                 options.scene_path, scene.sphere_count, stage_info.name, stage_info.max_spheres,
                 stage_info.max_spheres_why);
        scene_free(&scene);
        return input_error(error);
    }

    /* A kernel built with __launch_bounds__ cannot be launched with bigger blocks: say so
     * before touching the GPU, as for any other bad option. */
    int block_x = options.block_x ? options.block_x : stage_info.block_x;
    int block_y = options.block_y ? options.block_y : stage_info.block_y;
    if (stage_info.max_block_threads > 0 && block_x * block_y > stage_info.max_block_threads) {
        snprintf(error, sizeof error,
                 "--block %dx%d is %d threads, over the %d this stage's kernel is built for (its "
                 "__launch_bounds__)",
                 block_x, block_y, block_x * block_y, stage_info.max_block_threads);
        scene_free(&scene);
        return input_error(error);
    }

    struct report report;
    report_init(&report, stage_info.name);
    report.scene_path = options.scene_path;
    struct render_job job;
    job.scene = &scene;
    job.width = options.width ? options.width : scene.width;
    job.height = options.height ? options.height : scene.height;
    job.block_x = block_x;
    job.block_y = block_y;
    job.report = &report;
    job.output_path = options.output_path;
    job.rays_per_thread = options.rays_per_thread ? options.rays_per_thread
                          : stage_info.rays_per_thread > 0 ? stage_info.rays_per_thread : 1;
    job.frames = options.frames ? options.frames : 1;
    report.width = job.width;
    report.height = job.height;
    report.spheres = scene.sphere_count;
    report.block_x = job.block_x;
    report.block_y = job.block_y;

    int status = 2;
    size_t frame_bytes = (size_t)job.width * (size_t)job.height * 3 * sizeof(float);
    size_t host_bytes = frame_bytes + (job.output_path ? frame_bytes / sizeof(float) : 0);
    unsigned long long host_limit = host_memory_limit();
    if (job.output_path && image_check_output_path(job.output_path, error, sizeof error)) {
        input_error(error);
    } else if (host_bytes > host_limit) {
        snprintf(error, sizeof error,
                 "image %dx%d needs %zu bytes of host memory, but this machine allows %llu",
                 job.width, job.height, host_bytes, host_limit);
        input_error(error);
    } else if (gpu_open(options.device, &report, error, sizeof error) != GPU_OK) {
        input_error(error);
    } else {
        char what[64];
        snprintf(what, sizeof what, "image %dx%d", job.width, job.height);
        size_t device_bytes = frame_bytes + (size_t)scene.sphere_count * sizeof(struct spec_sphere);
        if (gpu_check_memory(device_bytes, what, error, sizeof error)) {
            input_error(error);
        } else {
            stage_render(&job);
            report.rays_traced = gpu_count_rays(&scene, job.width, job.height);
            if (options.csv)
                report_print_csv(&report, stdout);
            else
                report_print_text(&report, stdout);
            status = 0;
        }
    }
    scene_free(&scene);
    return status;
}
