/* The path-tracing track's half of a stage's main() (track.h): the track's scene format, the
 * render job, the checks a path-tracing stage needs (the spheres it holds, --record, --tiles),
 * the ray count with the stage's estimator and the samples per second. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/count_rays.h"
#include "pathtrace/pt_reference.h" /* pt_reference_pixel_bytes */
#include "pathtrace/pt_stage.h"
#include "runtime/track.h"

/* Generous bounds of what a stage holds per pixel, for the checks before anything is
 * allocated: the sums (24 B) and a frame of samples on the host; rays, hits, samples and sums
 * on the GPU, and beside them the reservoirs' buffers where the estimator keeps some (136 B,
 * pt_reference_pixel_bytes). */
#define HOST_BYTES_PER_PIXEL 64
#define DEVICE_BYTES_PER_PIXEL 128

const char *const track_options = "--samples";

struct track_run {
    struct pt_scene scene;
    struct pt_render_job job;
    int estimator; /* the manifest's, as enum pt_estimator */
};

static struct track_run the_run;

void track_print_help(FILE *out)
{
    fprintf(out, "estimator: %s\n", stage_manifest.estimator);
}

/* 0, or -1 and a one-line message: what a path-tracing stage checks before the GPU is touched. */
static int check_job(const struct pt_render_job *job, const char *scene_path, char *error,
                     size_t error_size)
{
    if (pt_stage_holds_scene(scene_path, job->scene, error, error_size))
        return -1;
    if (job->record_dir && job->record_segment >= job->max_depth) {
        snprintf(error, error_size,
                 "--record-segment %d: the scene's paths have segments 0 to %d (max_depth %d)",
                 job->record_segment, job->max_depth - 1, job->max_depth);
        return -1;
    }
    if (job->record_dir && pt_record_prepare(job->record_dir, error, error_size))
        return -1;
    if (job->tiles > job->width || job->tiles > job->height) {
        snprintf(error, error_size, "--tiles %d: the image is %dx%d, fewer pixels a side than tiles",
                 job->tiles, job->width, job->height);
        return -1;
    }
    return 0;
}

struct track_run *track_prepare(const struct options *options, struct report *report, char *error,
                                size_t error_size)
{
    struct track_run *run = &the_run;
    run->estimator = pt_estimator_from_name(stage_manifest.estimator);
    /* Every estimator of SPEC.md section 6, reservoirs (pathtrace/pt_reservoirs.h) included:
     * the GPU ray count (common/runtime/count_rays.cu) knows them all. */
    if (run->estimator < 0) {
        snprintf(error, error_size, "stages/%s/manifest names estimator '%s', which is none of "
                 "path, nee, light-pool or reservoirs", stage_manifest.name,
                 stage_manifest.estimator);
        return NULL;
    }
    struct pt_scene *scene = &run->scene;
    if (pt_scene_load(options->scene_path, scene, error, error_size))
        return NULL;
    struct pt_render_job *job = &run->job;
    job->scene = scene;
    job->width = options->width ? options->width : scene->width;
    job->height = options->height ? options->height : scene->height;
    job->samples = options->samples ? options->samples : scene->samples;
    job->max_depth = scene->max_depth;
    job->world = pt_scene_world(scene, job->width, job->height);
    job->report = report;
    job->output_path = options->output_path;
    job->scene_path = options->scene_path;
    job->record_dir = options->record_dir;
    job->record_segment = options->record_segment >= 0 ? options->record_segment : 1;
    job->tiles = options->tiles ? options->tiles : 1;
    job->device = options->device;
    job->gpus = options->gpus;

    if (check_job(job, options->scene_path, error, error_size)) {
        pt_scene_free(scene);
        return NULL;
    }
    report->width = job->width;
    report->height = job->height;
    report->spheres = scene->sphere_count;
    report->block_x = stage_info.block_x;
    report->block_y = stage_info.block_y;
    return run;
}

static size_t pixels(const struct track_run *run)
{
    return (size_t)run->job.width * (size_t)run->job.height;
}

size_t track_host_bytes(const struct track_run *run)
{
    return pixels(run) * HOST_BYTES_PER_PIXEL;
}

size_t track_device_bytes(const struct track_run *run)
{
    return pixels(run) * (DEVICE_BYTES_PER_PIXEL + pt_reference_pixel_bytes(run->estimator));
}

void track_render(struct track_run *run)
{
    struct pt_render_job *job = &run->job;
    struct report *report = job->report;
    stage_render(job);
    report->rays_traced = pt_gpu_count_rays(&job->world, job->samples, run->estimator);
    double seconds = report->kernel_event_us * 1e-6;
    report_metric(report, "samples_per_pixel", job->samples, "samples");
    report_metric(report, "samples_per_second",
                  seconds > 0 ? (double)pixels(run) * job->samples / seconds : 0, "samples/s");
}

void track_free(struct track_run *run)
{
    pt_scene_free(&run->scene);
}
