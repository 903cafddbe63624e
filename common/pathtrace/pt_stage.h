/* What a stage of the path-tracing track is: its render.cu defines stage_info, stage_render()
 * and stage_bench(); everything around them (options, scene, checks, the report, the image, the
 * kernel benchmark's files) is common/pathtrace/. */
#ifndef PT_STAGE_H
#define PT_STAGE_H

#include <stddef.h>

#include "cuda_check.h"
#include "options.h"
#include "pathtrace/pt_record.h"
#include "pathtrace/pt_scene.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pt_stage_info {
    const char *name;            /* the folder name, e.g. "p01-base" */
    const char *lesson;          /* one line for --help */
    int max_spheres;             /* what the stage's data structures hold */
    const char *max_spheres_why; /* e.g. "its constant-memory arrays" */
    int block_threads;           /* threads per block of every kernel */
    int whole_paths;             /* PT_WHOLE_PATHS: no kernel per segment (0 for p01-p07) */
    int estimator;               /* enum pt_estimator: PT_ESTIMATOR_PATH but for seed 003's */
    unsigned options;            /* options beyond the track's (options.h), e.g. OPTION_TILES */
};

/* stage_info.whole_paths: a stage whose kernel follows whole paths has no per-segment state to
 * record (--record) or kernels to replay (build/<stage>-bench): those are for p01-p07. */
#define PT_SEGMENT_KERNELS 0
#define PT_WHOLE_PATHS 1

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
    int tiles;                /* --tiles N (OPTION_TILES): N x N tiles; 1 without it */
};

extern const struct pt_stage_info stage_info;

/* Renders job->samples frames, timing each phase into job->report, and calls
 * pt_render_job_sums_ready() once the pixel sums (width * height * 3, RGB, in SPEC.md section 4's
 * fixed point) are on the host, before host memory is freed. With job->record_dir, saves the
 * state before segment job->record_segment of frame 0 (pt_record_write). */
void stage_render(struct pt_render_job *job);

/* The kernel benchmark (seed 000): runs the stage's per-segment kernels alone on a recorded
 * state, each `repeats` times, and fills the times (tools: build/<stage>-bench). */
void stage_bench(const struct pt_record *record, const struct pt_scene *scene, int repeats,
                 struct pt_bench_times *times);

/* Common: notes the host memory kind, writes the image if asked (timed apart). */
void pt_render_job_sums_ready(struct pt_render_job *job, const unsigned long long *sums);

/* Common: 0 when the stage's data structures hold the scene's spheres, else -1 and a message. */
int pt_stage_holds_scene(const char *scene_path, const struct pt_scene *scene, char *error,
                         size_t error_size);

/* Common: the rays the image needs with the stage's estimator (common/pathtrace/pt_count.cu,
 * outside the timing). */
unsigned long long pt_gpu_count_rays(const struct pt_world *world, int samples, int estimator);

/* malloc that ends the program with a clear message (and status 1) when memory runs out. */
void *host_alloc_or_exit(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif

#endif
