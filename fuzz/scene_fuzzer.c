/* libFuzzer target for the scene parser (common/raytrace/scene.c): every byte string must either parse
 * into a scene that keeps the parser's promises, or be refused with one line of error text.
 * Never a crash, a leak, an overflow or undefined behaviour (built with address and undefined
 * sanitizers by `make fuzz`; the seed corpus is the .scene files of scenes/ and tests/bad-scenes/). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raytrace/scene.h"

static int finite3(struct spec_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    memset(error, 'x', sizeof error); /* the message must be terminated by the parser */
    if (scene_parse((const char *)data, size, "fuzz", &scene, error, sizeof error) != 0) {
        size_t length = strnlen(error, sizeof error);
        if (length == 0 || length == sizeof error || memchr(error, '\n', length))
            abort(); /* not one terminated, non-empty line */
        if (scene.spheres != NULL || scene.sphere_count != 0)
            abort(); /* a failed parse owns nothing */
        return 0;
    }
    /* What a successful parse promises every stage. */
    if (scene_check_size(scene.width, scene.height, error, sizeof error) != 0)
        abort();
    if (scene.sphere_count < 1 || scene.sphere_count > SCENE_MAX_SPHERES || !scene.spheres)
        abort();
    if (!finite3(scene.camera) || !finite3(scene.light_position) || !finite3(scene.background) ||
        !finite3(scene.light_colour))
        abort();
    for (int i = 0; i < scene.sphere_count; ++i) {
        const struct spec_sphere *s = &scene.spheres[i];
        if (!(s->radius > 0) || !isfinite(s->radius) || !finite3(s->centre) ||
            !finite3(s->colour))
            abort();
    }
    struct spec_world world = scene_world(&scene);
    if (world.sphere_count != scene.sphere_count)
        abort();
    scene_free(&scene);
    return 0;
}
