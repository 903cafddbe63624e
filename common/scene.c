#include "scene.h"

#include "files.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE_BYTES 1024
#define MAX_TOKENS 9

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

struct parser {
    const char *name;
    int line;
    char *error;
    size_t error_size;
};

static int fail(const struct parser *p, const char *format, ...)
{
    char message[SCENE_ERROR_BYTES];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (p->line > 0)
        snprintf(p->error, p->error_size, "%s:%d: %s", p->name, p->line, message);
    else
        snprintf(p->error, p->error_size, "%s: %s", p->name, message);
    return -1;
}

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

/* Strict number: the whole token, finite. */
static int parse_number(const struct parser *p, const char *keyword, const char *token,
                        double *value)
{
    char *end;
    errno = 0;
    double v = strtod(token, &end);
    if (end == token || *end != '\0')
        return fail(p, "'%s': '%s' is not a number", keyword, token);
    if (!isfinite(v))
        return fail(p, "'%s': '%s' is not a finite number", keyword, token);
    /* Values are stored as float: beyond FLT_MAX they would become infinite, and below
     * FLT_MIN (or underflowing in strtod) they would lose precision or become 0, which would
     * for instance let 'sphere 1e-60 ...' through as a positive radius of 0. */
    if (fabs(v) > 3.0e38)
        return fail(p, "'%s': '%s' is too large (magnitude at most 3e38)", keyword, token);
    if ((v != 0 && fabs(v) < FLT_MIN) || errno == ERANGE)
        return fail(p, "'%s': '%s' is too close to 0 (use 0 or a magnitude of at least 1.2e-38)",
                    keyword, token);
    *value = v;
    return 0;
}

static int check_range(const struct parser *p, const char *keyword, const char *what, double v,
                       double lo, double hi)
{
    if (v < lo || v > hi)
        return fail(p, "'%s': %s %g is out of range [%g, %g]", keyword, what, v, lo, hi);
    return 0;
}

static struct spec_vec3 vec3_of(const double *v)
{
    return spec_v3((float)v[0], (float)v[1], (float)v[2]);
}

static int apply(struct parser *p, struct scene *scene, enum keyword kw, const double *v,
                 int *sphere_capacity)
{
    const char *name = keywords[kw].name;
    switch (kw) {
    case KW_SIZE:
        for (int i = 0; i < 2; ++i)
            if (v[i] != floor(v[i]))
                return fail(p, "'size': %g is not a whole number", v[i]);
        /* Far outside before converting to long long (found by fuzz/scene_fuzzer.c). */
        for (int i = 0; i < 2; ++i)
            if (fabs(v[i]) > 1e9)
                return fail(p, "'size': %g is out of range (each side %d to %d)", v[i],
                            SCENE_MIN_SIDE, SCENE_MAX_SIDE);
        if (v[0] < SCENE_MIN_SIDE || v[1] < SCENE_MIN_SIDE || v[0] > SCENE_MAX_SIDE ||
            v[1] > SCENE_MAX_SIDE) {
            char message[SCENE_ERROR_BYTES];
            scene_check_size((long long)v[0], (long long)v[1], message, sizeof message);
            return fail(p, "%s", message);
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
            return fail(p, "'sphere': radius %g must be positive", v[0]);
        for (int i = 4; i < 7; ++i)
            if (check_range(p, name, "colour channel", v[i], 0, 1))
                return -1;
        if (scene->sphere_count == SCENE_MAX_SPHERES)
            return fail(p, "too many spheres (a scene holds at most %d)", SCENE_MAX_SPHERES);
        if (scene->sphere_count == *sphere_capacity) {
            int capacity = *sphere_capacity ? *sphere_capacity * 2 : 32;
            struct spec_sphere *grown = realloc(scene->spheres, (size_t)capacity * sizeof *grown);
            if (!grown)
                return fail(p, "out of memory reading spheres");
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
    return fail(p, "internal error: keyword %d", (int)kw);
}

static int parse_line(struct parser *p, struct scene *scene, char *line, int *seen_on,
                      int *sphere_capacity)
{
    char *comment = strchr(line, '#');
    if (comment)
        *comment = '\0';

    char *tokens[MAX_TOKENS + 1];
    int count = 0;
    for (char *cursor = line;;) {
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r')
            ++cursor;
        if (*cursor == '\0')
            break;
        if (count == MAX_TOKENS + 1)
            return fail(p, "too many values on one line");
        tokens[count++] = cursor;
        while (*cursor && *cursor != ' ' && *cursor != '\t' && *cursor != '\r')
            ++cursor;
        if (*cursor)
            *cursor++ = '\0';
    }
    if (count == 0)
        return 0;

    for (const char *c = tokens[0]; *c; ++c)
        if (!isprint((unsigned char)*c))
            return fail(p, "unexpected character (byte 0x%02x)", (unsigned char)*c);

    int kw = 0;
    while (kw < KW_COUNT && strcmp(tokens[0], keywords[kw].name) != 0)
        ++kw;
    if (kw == KW_COUNT)
        return fail(p, "unknown keyword '%.40s'", tokens[0]);

    int given = count - 1;
    if (given != keywords[kw].values)
        return fail(p, "'%s' needs %d value%s (%s), got %d", keywords[kw].name,
                    keywords[kw].values, keywords[kw].values == 1 ? "" : "s",
                    keywords[kw].meaning, given);
    if (kw != KW_SPHERE && seen_on[kw])
        return fail(p, "'%s' given twice (first on line %d)", keywords[kw].name, seen_on[kw]);

    double values[MAX_TOKENS] = {0};
    for (int i = 0; i < given; ++i) {
        if (strlen(tokens[i + 1]) > 64)
            return fail(p, "'%s': value too long", keywords[kw].name);
        if (parse_number(p, keywords[kw].name, tokens[i + 1], &values[i]))
            return -1;
    }
    if (apply(p, scene, (enum keyword)kw, values, sphere_capacity))
        return -1;
    if (!seen_on[kw])
        seen_on[kw] = p->line;
    return 0;
}

/* Plain ASCII only, and named when not: a CR that does not end a CRLF line (old Mac line ends
 * run the whole file into one line), a byte above 0x7F (UTF-8, for example a non-breaking space
 * pasted from a document), a control byte. Reports the first, with its column. */
static int scan_line(const struct parser *p, const unsigned char *line, size_t length)
{
    for (size_t k = 0; k < length; ++k) {
        unsigned char c = line[k];
        int column = (int)k + 1;
        if (c == '\r')
            return fail(p, "a carriage return (CR) in column %d that does not end the line: line "
                           "ends must be LF or CRLF, not CR alone (old Mac line ends)",
                        column);
        if (c == 0xC2 && k + 1 < length && line[k + 1] == 0xA0)
            return fail(p, "unexpected character (bytes 0xC2 0xA0, a UTF-8 non-breaking space) in "
                           "column %d: scene files are plain ASCII",
                        column);
        if (c > 0x7E)
            return fail(p, "unexpected character (byte 0x%02x, not ASCII) in column %d: scene files "
                           "are plain ASCII",
                        c, column);
        if (c < 0x20 && c != '\t')
            return fail(p, "unexpected character (byte 0x%02x, a control byte) in column %d", c,
                        column);
    }
    return 0;
}

int scene_parse(const char *text, size_t length, const char *name, struct scene *scene,
                char *error, size_t error_size)
{
    struct parser p = {name, 0, error, error_size};
    int seen_on[KW_COUNT] = {0};
    int sphere_capacity = 0;
    char line[MAX_LINE_BYTES + 1];

    memset(scene, 0, sizeof *scene);
    if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        p.line = 1;
        fail(&p, "the file starts with a UTF-8 byte-order mark (bytes 0xEF 0xBB 0xBF): save it as "
                 "plain ASCII");
        goto failed;
    }
    size_t at = 0;
    while (at < length) {
        ++p.line;
        size_t end = at;
        while (end < length && text[end] != '\n')
            ++end;
        size_t line_length = end - at;
        /* A CRLF line is as long as its LF twin: the CR before the LF is not counted. */
        size_t counted = line_length > 0 && text[end - 1] == '\r' ? line_length - 1 : line_length;
        if (scan_line(&p, (const unsigned char *)text + at, counted))
            goto failed;
        if (counted > MAX_LINE_BYTES) {
            fail(&p, "line longer than %d characters", MAX_LINE_BYTES);
            goto failed;
        }
        memcpy(line, text + at, counted);
        line[counted] = '\0';
        if (parse_line(&p, scene, line, seen_on, &sphere_capacity))
            goto failed;
        at = end + 1;
    }

    p.line = 0;
    for (int kw = 0; kw < KW_COUNT; ++kw) {
        if (kw != KW_SPHERE && !seen_on[kw]) {
            fail(&p, "missing '%s %s'", keywords[kw].name, keywords[kw].meaning);
            goto failed;
        }
    }
    if (scene->sphere_count == 0) {
        fail(&p, "no spheres (add at least one 'sphere %s' line)", keywords[KW_SPHERE].meaning);
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
    FILE *file = open_regular_file(path, "scene file", SCENE_MAX_FILE_BYTES, error, error_size);
    if (!file)
        return -1;
    char *text = malloc(SCENE_MAX_FILE_BYTES + 1);
    if (!text) {
        fclose(file);
        snprintf(error, error_size, "%s: out of memory reading the scene", path);
        return -1;
    }
    size_t length = fread(text, 1, SCENE_MAX_FILE_BYTES + 1, file);
    int read_error = ferror(file);
    fclose(file);
    int result = -1;
    if (read_error)
        snprintf(error, error_size, "%s: cannot read scene file: %s", path, strerror(errno));
    else if (length > SCENE_MAX_FILE_BYTES) /* it grew since it was opened */
        snprintf(error, error_size, "%s: scene file larger than %d bytes", path,
                 SCENE_MAX_FILE_BYTES);
    else
        result = scene_parse(text, length, path, scene, error, error_size);
    free(text);
    return result;
}

void scene_free(struct scene *scene)
{
    free(scene->spheres);
    scene->spheres = NULL;
    scene->sphere_count = 0;
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
