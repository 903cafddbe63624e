/* What a stage's code decides, for the one main() of every stage (common/runtime/stage_main.c): its
 * render.cu defines stage_info. What the stage is (name, lesson, the stage it builds on, its
 * options) is not here but in its manifest (stage_manifest.h). */
#ifndef STAGE_INFO_H
#define STAGE_INFO_H

#include <stddef.h>

#include "runtime/stage_manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stage_info {
    int max_spheres;             /* what the stage's data structures hold */
    const char *max_spheres_why; /* e.g. "its per-thread distance array" */
    int block_x, block_y;        /* default threads per block (a path-tracing stage's: N x 1) */
    int rays_per_thread;         /* the default of --rays-per-thread where the stage takes it */
    int max_block_threads;       /* the kernel's __launch_bounds__, if any; 0: the GPU's 1024 */
};

extern const struct stage_info stage_info;

/* malloc that ends the program with a clear message (and status 1) when memory runs out. */
void *host_alloc_or_exit(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif

#endif
