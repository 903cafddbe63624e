/* The command line every stage (and the CPU reference) shares. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPTIONS_DEFAULT_SCENE "scenes/benchmark.scene"
#define OPTIONS_DEFAULT_PT_SCENE "scenes/pt-benchmark.scene" /* with OPTION_SAMPLES */
#define OPTIONS_ERROR_BYTES 512

/* Which options a program accepts. */
enum option_set {
    OPTION_GPU = 1 << 0,     /* --csv, --device */
    OPTION_BLOCK = 1 << 1,   /* --block WxH */
    OPTION_THREADS = 1 << 2, /* --threads N (CPU reference) */
    OPTION_RAYS_PER_THREAD = 1 << 3, /* --rays-per-thread N */
    OPTION_FRAMES = 1 << 4,          /* --frames N (steady state) */
    OPTION_SAMPLES = 1 << 5, /* --samples N: the path-tracing track (its default scene too) */
    OPTION_RECORD = 1 << 6,  /* --record DIR, --record-segment K (path-tracing stages) */
    OPTION_TILES = 1 << 7,   /* --tiles N: the frame in N x N tiles (stage p08a) */
    OPTION_ESTIMATOR = 1 << 8, /* --estimator NAME (the path-tracing track's CPU reference) */
};

#define OPTIONS_MAX_RAYS_PER_THREAD 64
#define OPTIONS_MAX_FRAMES 10000
#define OPTIONS_MAX_SAMPLES 65536
#define OPTIONS_MAX_SEGMENT 63
#define OPTIONS_MAX_TILES 1024

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
    int samples;          /* 0 when the scene's samples per pixel are used */
    const char *record_dir; /* NULL: nothing recorded */
    int record_segment;     /* -1 when not given */
    int tiles;              /* 0 when not given: the stage's default */
    const char *estimator;  /* NULL when not given: the path estimator */
    int help;
};

/* 0, or -1 with a one-line message in error. */
int options_parse(int argc, char **argv, unsigned accepted, struct options *options, char *error,
                  size_t error_size);

/* Parses "WxH" (whole numbers, no sign); 0 or -1. The caller checks the range. */
int options_parse_size(const char *text, long long *width, long long *height);

void options_print_usage(FILE *out, const char *program, unsigned accepted,
                         const char *default_block, int default_rays_per_thread);

#ifdef __cplusplus
}
#endif

#endif
