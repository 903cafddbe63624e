/* main() of every stage of the path-tracing track: input checked before the GPU is touched,
 * then the stage's rendering, the ray count, the report. Exit status: 0 rendered, 1 CUDA or
 * system failure, 2 bad input or no GPU (as in the main chain's common/stage_main.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "host_pages.h"
#include "image.h"
#include "options.h"
#include "pathtrace/pt_stage.h"

#define ERROR_BYTES 1024
/* Generous bounds of what a stage holds per pixel, for the checks before anything is
 * allocated: the sums (24 B) and a frame of samples on the host; rays, hits, samples and sums
 * on the GPU. */
#define HOST_BYTES_PER_PIXEL 64
#define DEVICE_BYTES_PER_PIXEL 128

static int input_error(const char *message)
{
    fprintf(stderr, "%s: error: %s\n", stage_info.name, message);
    return 2;
}

int main(int argc, char **argv)
{
    cuda_check_program = stage_info.name;
    unsigned accepted = OPTION_GPU | OPTION_SAMPLES | stage_info.options;
    if (stage_info.whole_paths != PT_WHOLE_PATHS)
        accepted |= OPTION_RECORD;
    struct options options;
    char error[ERROR_BYTES];
    if (options_parse(argc, argv, accepted, &options, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s (see --help)\n", stage_info.name, error);
        return 2;
    }
    if (options.help) {
        printf("%s: %s\n", stage_info.name, stage_info.lesson);
        printf("estimator: %s\n\n", pt_estimator_name(stage_info.estimator));
        options_print_usage(stdout, argv[0], accepted, "", 0);
        return 0;
    }

    struct pt_scene scene;
    if (pt_scene_load(options.scene_path, &scene, error, sizeof error))
        return input_error(error);
    int status = 2;
    struct pt_render_job job;
    job.scene = &scene;
    job.width = options.width ? options.width : scene.width;
    job.height = options.height ? options.height : scene.height;
    job.samples = options.samples ? options.samples : scene.samples;
    job.max_depth = scene.max_depth;
    job.world = pt_scene_world(&scene, job.width, job.height);
    job.output_path = options.output_path;
    job.scene_path = options.scene_path;
    job.record_dir = options.record_dir;
    job.record_segment = options.record_segment >= 0 ? options.record_segment : 1;
    job.tiles = options.tiles ? options.tiles : 1;
    size_t pixels = (size_t)job.width * (size_t)job.height;

    if (pt_stage_holds_scene(options.scene_path, &scene, error, sizeof error)) {
        input_error(error);
    } else if (job.record_dir && job.record_segment >= job.max_depth) {
        snprintf(error, sizeof error,
                 "--record-segment %d: the scene's paths have segments 0 to %d (max_depth %d)",
                 job.record_segment, job.max_depth - 1, job.max_depth);
        input_error(error);
    } else if (job.record_dir && pt_record_prepare(job.record_dir, error, sizeof error)) {
        input_error(error);
    } else if (job.tiles > job.width || job.tiles > job.height) {
        snprintf(error, sizeof error, "--tiles %d: the image is %dx%d, fewer pixels a side than tiles",
                 job.tiles, job.width, job.height);
        input_error(error);
    } else if (job.output_path && image_check_output_path(job.output_path, error, sizeof error)) {
        input_error(error);
    } else if (pixels * HOST_BYTES_PER_PIXEL > host_memory_limit()) {
        snprintf(error, sizeof error,
                 "image %dx%d needs about %zu bytes of host memory, but this machine allows %llu",
                 job.width, job.height, pixels * HOST_BYTES_PER_PIXEL, host_memory_limit());
        input_error(error);
    } else {
        struct report report;
        report_init(&report, stage_info.name);
        report.scene_path = options.scene_path;
        report.width = job.width;
        report.height = job.height;
        report.spheres = scene.sphere_count;
        report.block_x = stage_info.block_threads;
        report.block_y = 1;
        job.report = &report;
        char what[64];
        snprintf(what, sizeof what, "image %dx%d", job.width, job.height);
        if (gpu_open(options.device, &report, error, sizeof error) != GPU_OK) {
            input_error(error);
        } else if (gpu_check_memory(pixels * DEVICE_BYTES_PER_PIXEL, what, error, sizeof error)) {
            input_error(error);
        } else {
            stage_render(&job);
            report.rays_traced = pt_gpu_count_rays(&job.world, job.samples, stage_info.estimator);
            double seconds = report.kernel_event_us * 1e-6;
            report_metric(&report, "samples_per_pixel", job.samples, "samples");
            report_metric(&report, "samples_per_second",
                          seconds > 0 ? (double)pixels * job.samples / seconds : 0, "samples/s");
            if (options.csv)
                report_print_csv(&report, stdout);
            else
                report_print_text(&report, stdout);
            status = 0;
        }
    }
    pt_scene_free(&scene);
    return status;
}
