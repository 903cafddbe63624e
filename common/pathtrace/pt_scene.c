/* Path-tracing scene files (SPEC-PATH-TRACING.md section 1): the lexical rules of SPEC.md
 * section 1 (common/runtime/scene_text.c) with the track's keywords and materials. */
#include "pathtrace/pt_scene.h"

#include "pathtrace/pt_reservoirs.h" /* PT_ALL_ESTIMATORS */
#include "raytrace/scene.h" /* SCENE_MAX_SIDE, scene_check_size, SCENE_ERROR_BYTES */
#include "runtime/scene_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MATERIAL_VALUES 4
#define MAX_TOKENS SCENE_TEXT_MAX_TOKENS /* more is "too many values on one line" */
#define SPHERE_PLACE_VALUES 4            /* radius cx cy cz, before the material */

enum keyword { KW_SIZE, KW_CAMERA, KW_SKY, KW_SAMPLES, KW_MAX_DEPTH, KW_SPHERE, KW_COUNT };

static const struct {
    const char *name;
    int values; /* for 'sphere', those before the material's */
    const char *meaning;
} keywords[KW_COUNT] = {
    [KW_SIZE] = {"size", 2, "width height"},
    [KW_CAMERA] = {"camera", 3, "x y z"},
    [KW_SKY] = {"sky", 3, "r g b (0..10000)"},
    [KW_SAMPLES] = {"samples", 1, "n"},
    [KW_MAX_DEPTH] = {"max_depth", 1, "n"},
    [KW_SPHERE] = {"sphere", SPHERE_PLACE_VALUES + 1, "radius cx cy cz MATERIAL values"},
};

static const struct {
    const char *name;
    int values;
    const char *meaning;
} materials[PT_MATERIAL_KINDS] = {
    [PT_DIFFUSE] = {"diffuse", 3, "r g b"},
    [PT_MIRROR] = {"mirror", 3, "r g b"},
    [PT_METAL] = {"metal", 4, "r g b fuzz"},
    [PT_GLASS] = {"glass", 4, "r g b ior"},
    [PT_LIGHT] = {"light", 3, "r g b"},
};

/* The main chain's keywords that this format does not have: named as such when found. */
static const char *const main_chain_keywords[] = {"background", "light", "light_colour",
                                                  "ambient", "diffuse", "specular"};

struct parse_state {
    struct pt_scene *scene;
    int seen_on[KW_COUNT]; /* the line each keyword was first given on, 0 if not yet */
    int capacity;          /* spheres and materials allocated */
};

const char *pt_material_name(int kind)
{
    return kind >= 0 && kind < PT_MATERIAL_KINDS ? materials[kind].name : "unknown";
}

static const char *const estimator_names[PT_ALL_ESTIMATORS] = {"path", "nee", "light-pool",
                                                                "reservoirs"};

const char *pt_estimator_name(int estimator)
{
    return estimator >= 0 && estimator < PT_ALL_ESTIMATORS ? estimator_names[estimator]
                                                           : "unknown";
}

int pt_estimator_from_name(const char *name)
{
    for (int e = 0; e < PT_ALL_ESTIMATORS; ++e)
        if (strcmp(name, estimator_names[e]) == 0)
            return e;
    return -1;
}

static int check_range(const struct scene_text_reader *p, const char *keyword, const char *what,
                       double v, double lo, double hi)
{
    if (v < lo || v > hi)
        return scene_text_fail(p, "'%s': %s %g is out of range [%g, %g]", keyword, what, v, lo,
                               hi);
    return 0;
}

/* samples, max_depth: a whole number from 1 to most. */
static int whole_number(const struct scene_text_reader *p, const char *keyword, double v,
                        int most, int *out)
{
    if (v != floor(v))
        return scene_text_fail(p, "'%s': %g is not a whole number", keyword, v);
    if (v < 1 || v > most)
        return scene_text_fail(p, "'%s': %g is out of range (1 to %d)", keyword, v, most);
    *out = (int)v;
    return 0;
}

static struct spec_vec3 vec3_of(const double *v)
{
    return spec_v3((float)v[0], (float)v[1], (float)v[2]);
}

static int parse_numbers(const struct scene_text_reader *p, const char *keyword, int count,
                         char **tokens, double *values)
{
    for (int i = 0; i < count; ++i)
        if (scene_text_number(p, keyword, tokens[i], &values[i]))
            return -1;
    return 0;
}

/* The material of a sphere, from its name and values (tokens, count of them). */
static int parse_material(const struct scene_text_reader *p, const char *name, int count,
                          char **tokens, struct pt_material *material)
{
    int kind = 0;
    while (kind < PT_MATERIAL_KINDS && strcmp(name, materials[kind].name) != 0)
        ++kind;
    if (kind == PT_MATERIAL_KINDS)
        return scene_text_fail(p,
                               "'sphere': unknown material '%.40s' (diffuse, mirror, metal, glass "
                               "or light)",
                               name);
    if (count != materials[kind].values)
        return scene_text_fail(p, "'sphere': material '%s' needs %d values (%s), got %d",
                               materials[kind].name, materials[kind].values,
                               materials[kind].meaning, count);
    double v[MAX_MATERIAL_VALUES] = {0};
    if (parse_numbers(p, "sphere", count, tokens, v))
        return -1;
    if (kind == PT_LIGHT) {
        for (int i = 0; i < 3; ++i)
            if (check_range(p, "sphere", "light emission", v[i], 0, PT_SCENE_MAX_EMISSION))
                return -1;
        if (v[0] == 0 && v[1] == 0 && v[2] == 0)
            return scene_text_fail(p, "'sphere': a light must emit (r g b not all 0)");
    } else {
        for (int i = 0; i < 3; ++i)
            if (check_range(p, "sphere", "colour channel", v[i], 0, 1))
                return -1;
    }
    if (kind == PT_METAL && check_range(p, "sphere", "fuzz", v[3], 0, 1))
        return -1;
    if (kind == PT_GLASS && check_range(p, "sphere", "ior", v[3], 1, 4))
        return -1;
    material->kind = kind;
    material->colour = vec3_of(v);
    material->parameter = kind == PT_METAL || kind == PT_GLASS ? (float)v[3] : 0.0f;
    return 0;
}

static int add_sphere(const struct scene_text_reader *p, struct parse_state *state,
                      const struct pt_sphere *sphere, const struct pt_material *material)
{
    struct pt_scene *scene = state->scene;
    if (scene->sphere_count == PT_SCENE_MAX_SPHERES)
        return scene_text_fail(p, "too many spheres (a scene holds at most %d)",
                               PT_SCENE_MAX_SPHERES);
    if (scene->sphere_count == state->capacity) {
        int capacity = state->capacity ? state->capacity * 2 : 32;
        if (capacity > PT_SCENE_MAX_SPHERES)
            capacity = PT_SCENE_MAX_SPHERES;
        struct pt_sphere *spheres = realloc(scene->spheres, (size_t)capacity * sizeof *spheres);
        if (spheres)
            scene->spheres = spheres;
        struct pt_material *grown =
            spheres ? realloc(scene->materials, (size_t)capacity * sizeof *grown) : NULL;
        if (grown)
            scene->materials = grown;
        if (!spheres || !grown)
            return scene_text_fail(p, "out of memory reading spheres");
        state->capacity = capacity;
    }
    scene->spheres[scene->sphere_count] = *sphere;
    scene->materials[scene->sphere_count] = *material;
    ++scene->sphere_count;
    return 0;
}

static int parse_sphere(const struct scene_text_reader *p, struct parse_state *state, int given,
                        char **values)
{
    if (given < SPHERE_PLACE_VALUES + 1)
        return scene_text_fail(p, "'sphere' needs at least %d values (%s), got %d",
                               SPHERE_PLACE_VALUES + 1, keywords[KW_SPHERE].meaning, given);
    double v[SPHERE_PLACE_VALUES];
    struct pt_material material;
    if (parse_numbers(p, "sphere", SPHERE_PLACE_VALUES, values, v))
        return -1;
    if (!(v[0] > 0))
        return scene_text_fail(p, "'sphere': radius %g must be positive", v[0]);
    if (parse_material(p, values[SPHERE_PLACE_VALUES], given - SPHERE_PLACE_VALUES - 1,
                       values + SPHERE_PLACE_VALUES + 1, &material))
        return -1;
    struct pt_sphere sphere;
    sphere.radius = (float)v[0];
    sphere.centre = vec3_of(v + 1);
    return add_sphere(p, state, &sphere, &material);
}

static int unknown_keyword(const struct scene_text_reader *p, const char *keyword)
{
    for (size_t k = 0; k < sizeof main_chain_keywords / sizeof *main_chain_keywords; ++k)
        if (strcmp(keyword, main_chain_keywords[k]) == 0)
            return scene_text_fail(p,
                                   "unknown keyword '%s' (a main-chain keyword, SPEC.md: "
                                   "path-tracing scenes have size, camera, sky, samples, "
                                   "max_depth and sphere, SPEC-PATH-TRACING.md)",
                                   keyword);
    return scene_text_fail(p, "unknown keyword '%.40s'", keyword);
}

static int parse_line(const struct scene_text_reader *p, int count, char **tokens, void *context)
{
    struct parse_state *state = context;
    struct pt_scene *scene = state->scene;
    int kw = 0;
    while (kw < KW_COUNT && strcmp(tokens[0], keywords[kw].name) != 0)
        ++kw;
    if (kw == KW_COUNT)
        return unknown_keyword(p, tokens[0]);
    const char *name = keywords[kw].name;
    int given = count - 1;
    if (kw == KW_SPHERE)
        return parse_sphere(p, state, given, tokens + 1);

    if (given != keywords[kw].values)
        return scene_text_fail(p, "'%s' needs %d value%s (%s), got %d", name,
                               keywords[kw].values, keywords[kw].values == 1 ? "" : "s",
                               keywords[kw].meaning, given);
    if (state->seen_on[kw])
        return scene_text_fail(p, "'%s' given twice (first on line %d)", name,
                               state->seen_on[kw]);
    double v[3] = {0};
    if (parse_numbers(p, name, given, tokens + 1, v))
        return -1;
    switch (kw) {
    case KW_SIZE:
        for (int i = 0; i < 2; ++i)
            if (v[i] != floor(v[i]))
                return scene_text_fail(p, "'size': %g is not a whole number", v[i]);
        for (int i = 0; i < 2; ++i)
            if (fabs(v[i]) > 1e9) /* far outside, before converting to long long */
                return scene_text_fail(p, "'size': %g is out of range (each side %d to %d)",
                                       v[i], SCENE_MIN_SIDE, SCENE_MAX_SIDE);
        {
            char message[SCENE_ERROR_BYTES];
            if (scene_check_size((long long)v[0], (long long)v[1], message, sizeof message))
                return scene_text_fail(p, "%s", message);
        }
        scene->width = (int)v[0];
        scene->height = (int)v[1];
        break;
    case KW_CAMERA:
        scene->camera = vec3_of(v);
        break;
    case KW_SKY:
        for (int i = 0; i < 3; ++i)
            if (check_range(p, name, "channel", v[i], 0, PT_SCENE_MAX_EMISSION))
                return -1;
        scene->sky = vec3_of(v);
        break;
    case KW_SAMPLES:
        if (whole_number(p, name, v[0], PT_SCENE_MAX_SAMPLES, &scene->samples))
            return -1;
        break;
    case KW_MAX_DEPTH:
        if (whole_number(p, name, v[0], PT_SCENE_MAX_DEPTH, &scene->max_depth))
            return -1;
        break;
    default:
        return scene_text_fail(p, "internal error: keyword %d", kw);
    }
    state->seen_on[kw] = p->line;
    return 0;
}

/* The light spheres, once, for next-event estimation (SPEC-PATH-TRACING.md section 6). */
static int list_lights(struct pt_scene *scene)
{
    int count = 0;
    for (int s = 0; s < scene->sphere_count; ++s)
        count += scene->materials[s].kind == PT_LIGHT;
    scene->light_count = count;
    if (count == 0)
        return 0;
    scene->lights = malloc((size_t)count * sizeof *scene->lights);
    if (!scene->lights)
        return -1;
    int l = 0;
    for (int s = 0; s < scene->sphere_count; ++s) {
        if (scene->materials[s].kind != PT_LIGHT)
            continue;
        scene->lights[l].centre = scene->spheres[s].centre;
        scene->lights[l].radius = scene->spheres[s].radius;
        scene->lights[l].emission = scene->materials[s].colour;
        scene->lights[l].sphere = s;
        ++l;
    }
    return 0;
}

int pt_scene_parse(const char *text, size_t length, const char *name, struct pt_scene *scene,
                   char *error, size_t error_size)
{
    struct parse_state state = {scene, {0}, 0};
    struct scene_text_reader file = {name, 0, error, error_size};

    memset(scene, 0, sizeof *scene);
    if (scene_text_parse(text, length, name, MAX_TOKENS, parse_line, &state, error, error_size))
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
    if (list_lights(scene)) {
        scene_text_fail(&file, "out of memory listing the lights");
        goto failed;
    }
    return 0;

failed:
    pt_scene_free(scene);
    return -1;
}

int pt_scene_load(const char *path, struct pt_scene *scene, char *error, size_t error_size)
{
    memset(scene, 0, sizeof *scene);
    char *text;
    size_t length;
    if (scene_text_load(path, "scene file", &text, &length, error, error_size))
        return -1;
    int result = pt_scene_parse(text, length, path, scene, error, error_size);
    free(text);
    return result;
}

void pt_scene_free(struct pt_scene *scene)
{
    free(scene->spheres);
    free(scene->materials);
    free(scene->lights);
    scene->spheres = NULL;
    scene->materials = NULL;
    scene->lights = NULL;
    scene->sphere_count = 0;
    scene->light_count = 0;
}

struct pt_world pt_scene_world(const struct pt_scene *scene, int width, int height)
{
    struct pt_world world;
    world.spheres = scene->spheres;
    world.materials = scene->materials;
    world.sphere_count = scene->sphere_count;
    world.lights = scene->lights;
    world.light_count = scene->light_count;
    world.camera = scene->camera;
    world.sky = scene->sky;
    world.width = width;
    world.height = height;
    world.max_depth = scene->max_depth;
    world.bvh.nodes = NULL; /* every sphere in file order; pt_bvh_build makes a hierarchy */
    world.bvh.node_count = 0;
    world.bvh.order = NULL;
    return world;
}
