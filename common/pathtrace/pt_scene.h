/* Path-tracing scene files: the scene-file format of SPEC.md with the keywords of
 * SPEC-PATH-TRACING.md (materials, lights, sky, samples, depth). */
#ifndef PT_SCENE_H
#define PT_SCENE_H

#include <stddef.h>

#include "pathtrace/pt_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PT_SCENE_MAX_SPHERES 100000
#define PT_SCENE_MAX_SAMPLES 65536
#define PT_SCENE_MAX_DEPTH 64
#define PT_SCENE_MAX_EMISSION 10000.0

struct pt_scene {
    int width, height;
    struct spec_vec3 camera;
    struct spec_vec3 sky; /* radiance of a ray that escapes */
    int samples;          /* per pixel */
    int max_depth;        /* segments per path */
    int sphere_count;
    struct pt_sphere *spheres;     /* sphere_count of each, in file order */
    struct pt_material *materials;
    int light_count;
    struct pt_light *lights;       /* the spheres made of `light`, in file order */
};

/* Each returns 0, or -1 with a one-line message "NAME:LINE: what is wrong" in error. */
int pt_scene_load(const char *path, struct pt_scene *scene, char *error, size_t error_size);
int pt_scene_parse(const char *text, size_t length, const char *name, struct pt_scene *scene,
                   char *error, size_t error_size);
void pt_scene_free(struct pt_scene *scene);

/* The arithmetic's view of a scene at width x height (no copy). */
struct pt_world pt_scene_world(const struct pt_scene *scene, int width, int height);

/* "diffuse", "mirror", ... */
const char *pt_material_name(int kind);

/* "path", "nee", "light-pool" (enum pt_estimator), "reservoirs" (PT_ESTIMATOR_RESERVOIRS,
 * pathtrace/pt_reservoirs.h); and back (-1: no such estimator). */
const char *pt_estimator_name(int estimator);
int pt_estimator_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
