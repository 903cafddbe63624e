#include "raytrace/scene.h"

#include "runtime/scene_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 9 /* values on one line at most: more is "too many values on one line" */

enum keyword {
    KW_SIZE, KW_CAMERA, KW_BACKGROUND, KW_LIGHT, KW_LIGHT_COLOUR,
    KW_AMBIENT, KW_DIFFUSE, KW_SPECULAR, KW_SPHERE, KW_COUNT
};

static const struct {
    const char *name;
    int values;
    const char *meaning;
} keywords[KW_COUNT] = {
    [KW_SIZE] = {"size", 2, "width height"},
    [KW_CAMERA] = {"camera", 3, "x y z"},
    [KW_BACKGROUND] = {"background", 3, "r g b (0..255)"},
    [KW_LIGHT] = {"light", 3, "x y z"},
    [KW_LIGHT_COLOUR] = {"light_colour", 3, "r g b (0..1)"},
    [KW_AMBIENT] = {"ambient", 1, "k"},
    [KW_DIFFUSE] = {"diffuse", 1, "k"},
    [KW_SPECULAR] = {"specular", 1, "k"},
    [KW_SPHERE] = {"sphere", 7, "radius cx cy cz r g b"},
};

int scene_check_size(long long width, long long height, char *error, size_t error_size)
{
    if (width < SCENE_MIN_SIDE || height < SCENE_MIN_SIDE) {
        snprintf(error, error_size, "image size %lldx%lld is too small (each side at least %d)",
                 width, height, SCENE_MIN_SIDE);
        return -1;
    }
    if (width > SCENE_MAX_SIDE || height > SCENE_MAX_SIDE) {
        snprintf(error, error_size, "image size %lldx%lld is too large (each side at most %d)",
                 width, height, SCENE_MAX_SIDE);
        return -1;
    }
    return 0;
}

static int check_range(const struct scene_text_reader *p, const char *keyword, const char *what,
                       double v, double lo, double hi)
{
    if (v < lo || v > hi)
        return scene_text_fail(p, "'%s': %s %g is out of range [%g, %g]", keyword, what, v, lo,
                               hi);
    return 0;
}

static struct spec_vec3 vec3_of(const double *v)
{
    return spec_v3((float)v[0], (float)v[1], (float)v[2]);
}

static int apply(const struct scene_text_reader *p, struct scene *scene, enum keyword kw,
                 const double *v, int *sphere_capacity)
{
    const char *name = keywords[kw].name;
    switch (kw) {
    case KW_SIZE:
        for (int i = 0; i < 2; ++i)
            if (v[i] != floor(v[i]))
                return scene_text_fail(p, "'size': %g is not a whole number", v[i]);
        /* Far outside before converting to long long (found by fuzz/scene_fuzzer.c). */
        for (int i = 0; i < 2; ++i)
            if (fabs(v[i]) > 1e9)
                return scene_text_fail(p, "'size': %g is out of range (each side %d to %d)",
                                       v[i], SCENE_MIN_SIDE, SCENE_MAX_SIDE);
        if (v[0] < SCENE_MIN_SIDE || v[1] < SCENE_MIN_SIDE || v[0] > SCENE_MAX_SIDE ||
            v[1] > SCENE_MAX_SIDE) {
            char message[SCENE_ERROR_BYTES];
            scene_check_size((long long)v[0], (long long)v[1], message, sizeof message);
            return scene_text_fail(p, "%s", message);
        }
        scene->width = (int)v[0];
        scene->height = (int)v[1];
        return 0;
    case KW_CAMERA:
        scene->camera = vec3_of(v);
        return 0;
    case KW_LIGHT:
        scene->light_position = vec3_of(v);
        return 0;
    case KW_BACKGROUND:
        for (int i = 0; i < 3; ++i)
            if (check_range(p, name, "channel", v[i], 0, 255))
                return -1;
        scene->background = vec3_of(v);
        return 0;
    case KW_LIGHT_COLOUR:
        for (int i = 0; i < 3; ++i)
            if (check_range(p, name, "channel", v[i], 0, 1))
                return -1;
        scene->light_colour = vec3_of(v);
        return 0;
    case KW_AMBIENT:
    case KW_DIFFUSE:
    case KW_SPECULAR:
        if (check_range(p, name, "coefficient", v[0], 0, 1))
            return -1;
        if (kw == KW_AMBIENT)
            scene->ambient = (float)v[0];
        else if (kw == KW_DIFFUSE)
            scene->diffuse = (float)v[0];
        else
            scene->specular = (float)v[0];
        return 0;
    case KW_SPHERE: {
        if (!(v[0] > 0))
            return scene_text_fail(p, "'sphere': radius %g must be positive", v[0]);
        for (int i = 4; i < 7; ++i)
            if (check_range(p, name, "colour channel", v[i], 0, 1))
                return -1;
        if (scene->sphere_count == SCENE_MAX_SPHERES)
            return scene_text_fail(p, "too many spheres (a scene holds at most %d)",
                                   SCENE_MAX_SPHERES);
        if (scene->sphere_count == *sphere_capacity) {
            int capacity = *sphere_capacity ? *sphere_capacity * 2 : 32;
            struct spec_sphere *grown = realloc(scene->spheres, (size_t)capacity * sizeof *grown);
            if (!grown)
                return scene_text_fail(p, "out of memory reading spheres");
            scene->spheres = grown;
            *sphere_capacity = capacity;
        }
        struct spec_sphere *s = &scene->spheres[scene->sphere_count++];
        s->radius = (float)v[0];
        s->centre = vec3_of(v + 1);
        s->colour = vec3_of(v + 4);
        return 0;
    }
    case KW_COUNT:
        break;
    }
    return scene_text_fail(p, "internal error: keyword %d", (int)kw);
}

struct parse_state {
    struct scene *scene;
    int seen_on[KW_COUNT]; /* the line each keyword was first given on, 0 if not yet */
    int sphere_capacity;
};

static int parse_line(const struct scene_text_reader *p, int count, char **tokens, void *context)
{
    struct parse_state *state = context;
    int kw = 0;
    while (kw < KW_COUNT && strcmp(tokens[0], keywords[kw].name) != 0)
        ++kw;
    if (kw == KW_COUNT)
        return scene_text_fail(p, "unknown keyword '%.40s'", tokens[0]);

    int given = count - 1;
    if (given != keywords[kw].values)
        return scene_text_fail(p, "'%s' needs %d value%s (%s), got %d", keywords[kw].name,
                               keywords[kw].values, keywords[kw].values == 1 ? "" : "s",
                               keywords[kw].meaning, given);
    if (kw != KW_SPHERE && state->seen_on[kw])
        return scene_text_fail(p, "'%s' given twice (first on line %d)", keywords[kw].name,
                               state->seen_on[kw]);

    double values[MAX_TOKENS] = {0};
    for (int i = 0; i < given; ++i)
        if (scene_text_number(p, keywords[kw].name, tokens[i + 1], &values[i]))
            return -1;
    if (apply(p, state->scene, (enum keyword)kw, values, &state->sphere_capacity))
        return -1;
    if (!state->seen_on[kw])
        state->seen_on[kw] = p->line;
    return 0;
}

int scene_parse(const char *text, size_t length, const char *name, struct scene *scene,
                char *error, size_t error_size)
{
    struct parse_state state = {scene, {0}, 0};
    struct scene_text_reader file = {name, 0, error, error_size};

    memset(scene, 0, sizeof *scene);
    if (scene_text_parse(text, length, name, MAX_TOKENS + 1, parse_line, &state, error,
                         error_size))
        goto failed;
    for (int kw = 0; kw < KW_COUNT; ++kw) {
        if (kw != KW_SPHERE && !state.seen_on[kw]) {
            scene_text_fail(&file, "missing '%s %s'", keywords[kw].name, keywords[kw].meaning);
            goto failed;
        }
    }
    if (scene->sphere_count == 0) {
        scene_text_fail(&file, "no spheres (add at least one 'sphere %s' line)",
                        keywords[KW_SPHERE].meaning);
        goto failed;
    }
    return 0;

failed:
    scene_free(scene);
    return -1;
}

int scene_load(const char *path, struct scene *scene, char *error, size_t error_size)
{
    memset(scene, 0, sizeof *scene);
    char *text;
    size_t length;
    if (scene_text_load(path, "scene file", &text, &length, error, error_size))
        return -1;
    int result = scene_parse(text, length, path, scene, error, error_size);
    free(text);
    return result;
}

void scene_free(struct scene *scene)
{
    free(scene->spheres);
    scene->spheres = NULL;
    scene->sphere_count = 0;
}

float scene_shadow_near(const struct scene *scene)
{
    const struct spec_vec3 camera = scene->camera, light = scene->light_position;
    double farthest = 0.0;
    for (int s = 0; s < scene->sphere_count; s++) {
        const double dx = (double)scene->spheres[s].centre.x - camera.x;
        const double dy = (double)scene->spheres[s].centre.y - camera.y;
        const double dz = (double)scene->spheres[s].centre.z - camera.z;
        const double d = sqrt(dx * dx + dy * dy + dz * dz), r = scene->spheres[s].radius;
        const double reach = (d > 1.001 * r ? sqrt(d * d - r * r) : d + r) + 1e-3 * d;
        farthest = reach > farthest ? reach : farthest;
    }
    const double lx = (double)light.x - camera.x, ly = (double)light.y - camera.y;
    const double lz = (double)light.z - camera.z;
    return (float)(sqrt(lx * lx + ly * ly + lz * lz) + farthest);
}

struct spec_world scene_world(const struct scene *scene)
{
    struct spec_world world;
    world.spheres = scene->spheres;
    world.sphere_count = scene->sphere_count;
    world.camera = scene->camera;
    world.background = scene->background;
    world.light_position = scene->light_position;
    world.light_colour = scene->light_colour;
    world.ambient = scene->ambient;
    world.diffuse = scene->diffuse;
    world.specular = scene->specular;
    return world;
}
