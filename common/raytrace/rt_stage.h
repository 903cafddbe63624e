/* A stage of the main track: its render.cu defines stage_info (stage_info.h) and stage_render();
 * everything around the rendering (options, scene, checks, the report, the image file) is
 * common/runtime/stage_main.c with the track's half, common/raytrace/rt_track.c. */
#ifndef STAGE_H
#define STAGE_H

#include <stddef.h>

#include "runtime/cuda_check.h"
#include "runtime/options.h"
#include "runtime/report.h"
#include "raytrace/scene.h"
#include "runtime/stage_info.h"

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
    int device;              /* --device: the GPU, or the first of a stage's GPUs */
    int gpus;                /* --gpus: the GPUs device .. device + gpus - 1; 0 when not given
                                (every GPU from device on); read only by stages that take it */
    const char *rendezvous;  /* --rendezvous, NULL when not given, and --rendezvous-timeout, 0
                                when not given: for a stage of one process a GPU, which reads its
                                rank from the environment (runtime/ranks.h) */
    int rendezvous_timeout;
};

/* Renders job->scene, timing each phase into job->report; calls render_job_frame_ready() once
 * the frame is back on the host and before host memory is freed. */
void stage_render(struct render_job *job);

/* Common: notes the host memory kind and writes the image if asked (timed apart). */
void render_job_frame_ready(struct render_job *job, const float *rgb);
/* The same for a stage whose kernel already wrote 8-bit RGB (SPEC.md's output rule applied). */
void render_job_frame_ready_rgb8(struct render_job *job, const unsigned char *rgb);

/* For a stage that encodes its PNG while the frame arrives (21a-streamed-png). When the job
 * writes a PNG (an output path not ending in .ppm, as image_write() decides), starts the encoder
 * (png_encode.h, png_stream_start()) of the width x height 8-bit frame that will arrive at rgb in
 * bands of band_rows rows, and returns it; its start is the report's metric image_encoder_start.
 * NULL when the job writes no PNG: then render_job_frame_ready_rgb8() as usual. */
struct png_stream;
struct png_stream *render_job_stream_png(struct render_job *job, const unsigned char *rgb,
                                         int band_rows);
/* Instead of render_job_frame_ready_rgb8() for such a stage, once the whole frame rgb is on the
 * host: notes the host memory kind, finishes the stream (the calling thread deflates beside the
 * stream's threads) and writes the file. The report's image_write is then the time from
 * frame_on_host_us (the moment the last rows arrived) to the file closed, and its metric
 * image_encode_left the part of it until the PNG was whole in memory. */
void render_job_frame_ready_streamed(struct render_job *job, const unsigned char *rgb,
                                     struct png_stream *stream, double frame_on_host_us);

#ifdef __cplusplus
}
#endif

#endif
