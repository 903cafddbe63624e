/* The kernel benchmark's files (seed 000): a stage run with --record DIR saves the state of
 * frame 0 before one segment's intersection, in one layout whatever the stage's own (one entry
 * per pixel, in pixel order), and build/<stage>-bench DIR replays it through that stage's kernels,
 * timing each alone. DIR holds record.bin and scene.scene (a copy of the scene file). */
#ifndef PT_RECORD_H
#define PT_RECORD_H

#include <stddef.h>

#include "pathtrace/pt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PT_RECORD_ERROR_BYTES 512

struct pt_record {
    int width, height; /* count = width * height paths */
    int sample;        /* the frame */
    int segment;       /* the state before this segment's intersection */
    int max_depth;
    struct spec_vec3 *origin, *direction; /* each path's ray */
    int *done;                            /* 1: the path has ended */
    struct spec_vec3 *colour, *attenuation; /* what it has brought back; its throughput */
};

struct pt_bench_times {
    int active;                 /* paths not done, the rays the intersection traces */
    double intersect_us[2];     /* median and minimum of the repeats */
    double scatter_us[2];
};

/* Allocates the arrays for width x height paths (0, or -1: out of memory). */
int pt_record_alloc(struct pt_record *record, int width, int height);
void pt_record_free(struct pt_record *record);

/* Creates DIR if missing (before the GPU is touched); 0, or -1 with a one-line message. */
int pt_record_prepare(const char *dir, char *error, size_t error_size);
/* Writes DIR/record.bin and copies scene_path to DIR/scene.scene (DIR is created if missing).
 * 0, or -1 with a one-line message. */
int pt_record_write(const char *dir, const char *scene_path, const struct pt_record *record,
                    char *error, size_t error_size);
/* Reads DIR/record.bin (allocating the arrays); 0, or -1 with a one-line message. */
int pt_record_read(const char *dir, struct pt_record *record, char *error, size_t error_size);

/* The median and the minimum of n times (sorted in place) into out[0] and out[1]. */
void pt_bench_median_min(double *us, int n, double out[2]);

#ifdef __cplusplus
}
#endif

#endif
