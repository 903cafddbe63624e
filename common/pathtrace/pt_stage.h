/* A stage of the path-tracing track: its render.cu defines stage_info (stage_info.h),
 * stage_render() and, where its manifest lists --record (a kernel per segment), stage_bench();
 * everything around them (options, scene, checks, the report, the image, the kernel benchmark's
 * files) is common/runtime/stage_main.c with the track's half, common/pathtrace/pt_track.c, and
 * common/pathtrace/. */
#ifndef PT_STAGE_H
#define PT_STAGE_H

#include <stddef.h>

#include "runtime/cuda_check.h"
#include "runtime/options.h"
#include "pathtrace/pt_record.h"
#include "pathtrace/pt_scene.h"
#include "runtime/report.h"
#include "runtime/stage_info.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pt_render_job {
    const struct pt_scene *scene;
    struct pt_world world; /* the scene at width x height (host pointers) */
    int width, height;     /* the scene's, or --size */
    int samples;           /* frames: the scene's, or --samples */
    int max_depth;
    struct report *report;
    const char *output_path;  /* NULL: no image */
    const char *scene_path;   /* for --record's copy of the scene */
    const char *record_dir;   /* --record: NULL, or where frame 0's state is saved */
    int record_segment;       /* ... before this segment's intersection */
    int tiles;                /* --tiles N: N x N tiles; 1 without it */
    int device;               /* --device: the GPU, or the first of a stage's GPUs */
    int gpus;                 /* --gpus: the GPUs device .. device + gpus - 1; 0 when not given
                                 (every GPU from device on); read only by stages that take it */
};

/* Renders job->samples frames, timing each phase into job->report, and calls
 * pt_render_job_sums_ready() once the pixel sums (width * height * 3, RGB, in SPEC.md section 4's
 * fixed point) are on the host, or pt_render_job_frame_ready_rgb8() once the 8-bit image made
 * from them on the device is, before host memory is freed. With job->record_dir, saves the
 * state before segment job->record_segment of frame 0 (pt_record_write). */
void stage_render(struct pt_render_job *job);

/* The kernel benchmark (seed 000): runs the stage's per-segment kernels alone on a recorded
 * state, each `repeats` times, and fills the times (tools: build/<stage>-bench). */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times);

/* Common: notes the host memory kind, writes the image if asked (timed apart). */
void pt_render_job_sums_ready(struct pt_render_job *job, const unsigned long long *sums);

/* The same for a stage that resolves its pixels on the device (SPEC.md section 4 allows it):
 * rgb is the 8-bit image, width * height * 3 bytes, each channel pt_pixel_channel of its sum. */
void pt_render_job_frame_ready_rgb8(struct pt_render_job *job, const unsigned char *rgb);

/* Common: 0 when the stage's data structures hold the scene's spheres, else -1 and a message. */
int pt_stage_holds_scene(const char *scene_path, const struct pt_scene *scene, char *error,
                         size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
