/* What a track adds to the one main() of every stage (common/runtime/stage_main.c). Each stage
 * links one
 * track: the main track's common/raytrace/rt_track.c or the path tracer's
 * common/pathtrace/pt_track.c. main() parses the options, answers --help, checks the output path,
 * host memory, the GPU and its memory, and prints the report; the track loads its scene, checks
 * what only it knows, renders through the stage's stage_render() and counts the rays. */
#ifndef TRACK_H
#define TRACK_H

#include <stddef.h>
#include <stdio.h>

#include "runtime/options.h"
#include "runtime/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options every stage of the track takes besides options.h's OPTIONS_GPU, e.g. "--samples". */
extern const char *const track_options;

/* The track's scene and render job. */
struct track_run;

/* What --help adds after the stage's lesson and the stage it builds on (the estimator). */
void track_print_help(FILE *out);

/* Loads the scene, checks what the track and the stage decide (the spheres the stage holds, the
 * block size, --record, --tiles) and fills the report's image size, spheres and block; NULL and
 * a one-line message in error on bad input. */
struct track_run *track_prepare(const struct options *options, struct report *report, char *error,
                                size_t error_size);

/* At most what the render needs, checked before anything is allocated. */
size_t track_host_bytes(const struct track_run *run);
size_t track_device_bytes(const struct track_run *run);

/* Renders (the stage's stage_render), then counts the rays and adds the track's metrics. */
void track_render(struct track_run *run);

void track_free(struct track_run *run);

#ifdef __cplusplus
}
#endif

#endif
