/* Scene files: the text format every stage, the CPU reference and the tests read. */
#ifndef SCENE_H
#define SCENE_H

#include <stddef.h>

#include "raytrace/spec_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCENE_MIN_SIDE 2          /* the camera divides by width - 1 and height - 1 */
#define SCENE_MAX_SIDE 32768
#define SCENE_MAX_SPHERES 100000
#define SCENE_MAX_FILE_BYTES (16 * 1024 * 1024)
#define SCENE_ERROR_BYTES 512

struct scene {
    int width, height;
    struct spec_vec3 camera;
    struct spec_vec3 background; /* 0..255 */
    struct spec_vec3 light_position;
    struct spec_vec3 light_colour;
    float ambient, diffuse, specular;
    int sphere_count;
    struct spec_sphere *spheres;
};

/* Each returns 0, or -1 with a one-line message "NAME:LINE: what is wrong" in error. */
int scene_load(const char *path, struct scene *scene, char *error, size_t error_size);
int scene_parse(const char *text, size_t length, const char *name, struct scene *scene,
                char *error, size_t error_size);
void scene_free(struct scene *scene);

/* The arithmetic's view of a scene (no copy). */
struct spec_world scene_world(const struct scene *scene);

/* About the farthest a primary ray's shadow ray starts from the light: the camera's distance from
 * it, plus the longest tangent from the camera to a sphere (the farthest a ray can meet it first;
 * across it, from inside or on its surface: distance plus radius), plus 1e-3 of the distance for
 * the rounded test's reach. The light cells of stages 14-21a serve the shadow rays that start
 * within it and size their margin by it (stage 14's README); computed in double. */
float scene_shadow_near(const struct scene *scene);

/* 0 when width x height is a size every stage accepts, else -1 with a message. */
int scene_check_size(long long width, long long height, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
