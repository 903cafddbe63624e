/* What a stage of either track does with its frame once it is on the host: note the host memory
 * it lies in and, when asked, write the 8-bit image, timed apart from the phases
 * (report->image_write_us). The tracks' own calls (raytrace/rt_track.c, pathtrace/pt_job.c) convert
 * their frames; these are the steps they share. */
#ifndef FRAME_OUT_H
#define FRAME_OUT_H

#include "image/image.h"
#include "runtime/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An 8-bit image of width x height for a frame to be converted into, or one line naming the
 * output and exit 1. */
void frame_image_alloc_or_exit(struct image *image, int width, int height, const char *path);

/* Writes image to path, or one line naming the problem and exit 1. */
void frame_write_or_exit(const char *path, const struct image *image);

/* Records the image's writing: from start_us to now, and where. */
void frame_written(struct report *report, const char *path, double start_us);

/* A frame already in 8 bits (width x height x 3 bytes): notes its host memory and writes it to
 * path, if path is not NULL, without a copy. */
void frame_ready_rgb8(struct report *report, const char *path, int width, int height,
                      const unsigned char *rgb);

#ifdef __cplusplus
}
#endif

#endif
