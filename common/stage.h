/* A stage of the main track: its render.cu defines stage_info (stage_info.h) and stage_render();
 * everything around the rendering (options, scene, checks, the report, the image file) is
 * common/stage_main.c with the track's half, common/main_track.c. */
#ifndef STAGE_H
#define STAGE_H

#include <stddef.h>

#include "cuda_check.h"
#include "options.h"
#include "report.h"
#include "scene.h"
#include "stage_info.h"

#ifdef __cplusplus
extern "C" {
#endif

struct render_job {
    const struct scene *scene;
    int width, height;   /* the scene's, or --size */
    int block_x, block_y;
    struct report *report;
    const char *output_path; /* NULL: no image */
    int rays_per_thread;     /* --rays-per-thread, 1 unless the stage takes it */
    int frames;              /* --frames, 1 unless the stage takes it */
};

/* Renders job->scene, timing each phase into job->report; calls render_job_frame_ready() once
 * the frame is back on the host and before host memory is freed. */
void stage_render(struct render_job *job);

/* Common: notes the host memory kind and writes the image if asked (timed apart). */
void render_job_frame_ready(struct render_job *job, const float *rgb);
/* The same for a stage whose kernel already wrote 8-bit RGB (SPEC.md's output rule applied). */
void render_job_frame_ready_rgb8(struct render_job *job, const unsigned char *rgb);

#ifdef __cplusplus
}
#endif

#endif
