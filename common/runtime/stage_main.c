/* main() of every stage of both tracks: input checked before the GPU is touched, then the
 * stage's rendering, then the report. What differs between the tracks (the scene format, the
 * job, the ray count) is the track's half (track.h). A stage of one process a GPU (its manifest's
 * launcher: ranks) is one of several such processes: its rank is read from the launcher's
 * environment with the options, it opens the GPU of its rank on its node, and only rank 0 prints
 * the report. Exit status: 0 rendered, 1 CUDA or system failure, 2 bad input or no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_check.h"
#include "runtime/gpu.h"
#include "runtime/host_pages.h"
#include "image/image.h"
#include "runtime/options.h"
#include "runtime/ranks.h"
#include "runtime/stage_info.h"
#include "runtime/track.h"

#define ERROR_BYTES 1024
#define ACCEPTED_BYTES 256

static int input_error(const char *message)
{
    fprintf(stderr, "%s: error: %s\n", stage_manifest.name, message);
    return 2;
}

static void print_help(const char *program, const char *accepted)
{
    printf("%s: %s\n", stage_manifest.name, stage_manifest.lesson);
    if (strcmp(stage_manifest.builds_on, "none") == 0)
        printf("builds on: nothing (the first stage of its track)\n");
    else
        printf("builds on: %s (its lesson as a diff: make diff STAGE=%s)\n", stage_manifest.builds_on,
               stage_manifest.id);
    track_print_help(stdout);
    printf("\n");
    char default_block[32];
    snprintf(default_block, sizeof default_block, "%dx%d", stage_info.block_x, stage_info.block_y);
    options_print_usage(stdout, program, accepted, default_block, stage_info.rays_per_thread);
}

int main(int argc, char **argv)
{
    cuda_check_program = stage_manifest.name;
    /* The options: every stage's, the track's, and those the stage's manifest names. */
    char accepted[ACCEPTED_BYTES];
    snprintf(accepted, sizeof accepted, "%s %s %s", OPTIONS_GPU, track_options,
             stage_manifest.options);
    struct options options;
    char error[ERROR_BYTES];
    if (options_parse(argc, argv, accepted, &options, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s (see --help)\n", stage_manifest.name, error);
        return 2;
    }
    if (options.help) {
        print_help(argv[0], accepted);
        return 0;
    }

    /* One process a GPU: which of how many, before anything else is read. */
    const int ranked = strcmp(stage_manifest.launcher, "ranks") == 0;
    struct ranks ranks;
    if (ranked && ranks_from_environment(ranks_getenv, options.rendezvous,
                                         options.rendezvous_timeout, &ranks, error, sizeof error))
        return input_error(error);

    struct report report;
    report_init(&report, stage_manifest.name);
    report.scene_path = options.scene_path;
    struct track_run *run = track_prepare(&options, &report, error, sizeof error);
    if (!run)
        return input_error(error);

    int status = 2, device = options.device;
    size_t host_bytes = track_host_bytes(run);
    unsigned long long host_limit = host_memory_limit();
    char what[64];
    snprintf(what, sizeof what, "image %dx%d", report.width, report.height);
    if (options.output_path && image_check_output_path(options.output_path, error, sizeof error)) {
        input_error(error);
    } else if (host_bytes > host_limit) {
        snprintf(error, sizeof error,
                 "%s needs up to %zu bytes of host memory, but this machine allows %llu", what,
                 host_bytes, host_limit);
        input_error(error);
    } else if (ranked && ranks.size > report.height) {
        snprintf(error, sizeof error, "%d ranks, but the image has %d rows: at most one rank a row",
                 ranks.size, report.height);
        input_error(error);
    } else if (ranked && ranks_device(&ranks, options.device, gpu_visible_count(), &device, error,
                                      sizeof error)) {
        input_error(error);
    } else if (gpu_open(device, &report, error, sizeof error) != GPU_OK) {
        input_error(error);
    } else if (gpu_check_count(options.device, options.gpus, error, sizeof error)) {
        input_error(error);
    } else if (gpu_check_memory(track_device_bytes(run), what, error, sizeof error)) {
        input_error(error);
    } else {
        track_render(run);
        if (ranked && ranks.rank != 0)
            status = 0; /* rank 0 prints the report of them all */
        else if (options.csv)
            report_print_csv(&report, stdout);
        else
            report_print_text(&report, stdout);
        status = 0;
    }
    track_free(run);
    return status;
}
