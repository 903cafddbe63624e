/* What a stage is: its render.cu defines stage_info and stage_render(); everything around the
 * rendering (options, scene, checks, the report, the image file) is common/stage_main.c. */
#ifndef STAGE_H
#define STAGE_H

#include <stddef.h>

#include "cuda_check.h"
#include "options.h"
#include "report.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stage_info {
    const char *name;            /* the folder name, e.g. "01-base" */
    const char *lesson;          /* one line for --help */
    int max_spheres;             /* what the stage's data structures hold */
    const char *max_spheres_why; /* e.g. "its per-thread distance array" */
    int block_x, block_y;        /* default threads per block */
    int block_is_option;         /* whether --block may change it */
    unsigned extra_options;      /* OPTION_RAYS_PER_THREAD, OPTION_FRAMES (options.h); 0: none */
    int rays_per_thread;         /* default of --rays-per-thread where the stage takes it */
    int max_block_threads;       /* the kernel's __launch_bounds__, if any; 0: the GPU's 1024 */
};

struct render_job {
    const struct scene *scene;
    int width, height;   /* the scene's, or --size */
    int block_x, block_y;
    struct report *report;
    const char *output_path; /* NULL: no image */
    int rays_per_thread;     /* --rays-per-thread, 1 unless the stage takes it */
    int frames;              /* --frames, 1 unless the stage takes it */
};

extern const struct stage_info stage_info;

/* Renders job->scene, timing each phase into job->report; calls render_job_frame_ready() once
 * the frame is back on the host and before host memory is freed. */
void stage_render(struct render_job *job);

/* Common: notes the host memory kind and writes the image if asked (timed apart). */
void render_job_frame_ready(struct render_job *job, const float *rgb);
/* The same for a stage whose kernel already wrote 8-bit RGB (SPEC.md's output rule applied). */
void render_job_frame_ready_rgb8(struct render_job *job, const unsigned char *rgb);

/* malloc that ends the program with a clear message (and status 1) when memory runs out. */
void *host_alloc_or_exit(size_t bytes, const char *what);

/* Counts the rays SPEC.md traces for this image (common/ray_count.cu, outside the timing). */
unsigned long long gpu_count_rays(const struct scene *scene, int width, int height);

#ifdef __cplusplus
}
#endif

#endif
