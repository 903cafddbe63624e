/* The command line every stage (and the CPU reference) shares. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPTIONS_DEFAULT_SCENE "scenes/benchmark.scene"
#define OPTIONS_DEFAULT_PT_SCENE "scenes/pt-benchmark.scene" /* with --samples */
#define OPTIONS_ERROR_BYTES 512

/* Every option is one row of the table in options.c: its name, value, field, limits, usage text,
 * which programs take it and which track's manifests may list it. A program says which options it
 * accepts beyond --scene, --size, --output and --help (every program's) as a list of names
 * separated by spaces, e.g. "--csv --device --block": a stage's list is every stage's
 * (OPTIONS_GPU), its track's and its manifest's (common/runtime/stage_main.c); the CPU references
 * take --threads (and build/pt-reference --samples --estimator). */
#define OPTIONS_GPU "--csv --device"

#define OPTIONS_MAX_RAYS_PER_THREAD 64
#define OPTIONS_MAX_FRAMES 10000
#define OPTIONS_MAX_SAMPLES 65536
#define OPTIONS_MAX_SEGMENT 63
#define OPTIONS_MAX_TILES 1024
#define OPTIONS_MAX_GPUS 64
#define OPTIONS_MAX_RENDEZVOUS_TIMEOUT 3600 /* seconds */

struct options {
    const char *scene_path; /* --scene, else the default: relative to the current folder, or
                               beside the executable's build folder when started elsewhere */
    int scene_given;
    int width, height;   /* 0 when the scene's size is used */
    const char *output_path; /* NULL: no image written */
    int csv;
    int device;
    int block_x, block_y; /* 0 when the stage's default is used */
    int threads;          /* 0: one per core */
    int rays_per_thread;  /* 0 when the stage's default is used */
    int frames;           /* 0 when one frame is rendered */
    int gpus;             /* 0 when not given: every GPU from --device on */
    const char *rendezvous; /* NULL when not given: a file named by the launcher's job id */
    int rendezvous_timeout; /* 0 when not given: the default (runtime/ranks.h) */
    int samples;          /* 0 when the scene's samples per pixel are used */
    const char *record_dir; /* NULL: nothing recorded */
    int record_segment;     /* -1 when not given */
    int tiles;              /* 0 when not given: the stage's default */
    const char *estimator;  /* NULL when not given: the path estimator */
    int help;
};

/* 0, or -1 with a one-line message in error. */
int options_parse(int argc, char **argv, const char *accepted, struct options *options,
                  char *error, size_t error_size);

/* 1 when name is an option that a program may list in `accepted` (e.g. a manifest's), else 0. */
int options_known(const char *name);

/* Parses "WxH" (whole numbers, no sign); 0 or -1. The caller checks the range. */
int options_parse_size(const char *text, long long *width, long long *height);

void options_print_usage(FILE *out, const char *program, const char *accepted,
                         const char *default_block, int default_rays_per_thread);

#ifdef __cplusplus
}
#endif

#endif
