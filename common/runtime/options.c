#include "runtime/options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raytrace/scene.h"

#define MAX_PATH_BYTES 4096
#define MAX_BLOCK_SIDE 1024
#define MAX_DEVICE_INDEX 1024
#define MAX_THREADS 4096

/* ---- the table: one row an option ----------------------------------------------------------
 *
 * A row says everything about an option: its name and value, the field of struct options it
 * sets, its limits, which programs take it (`set`: the name a program's accepted list must hold,
 * NULL for every program), which track's manifests may list it (tools/stages reads `manifest`
 * from here), its lines of --help, and, through `home`, what a program that does not take it
 * says. A new option is a new field in struct options and one row; the parser, the usage text and
 * the refusals below read only the table. */

enum value_kind {
    FLAG,  /* no value: the int field becomes 1 */
    TEXT,  /* a path or a name: the const char * field */
    COUNT, /* a whole number from min to max: the int field */
    SIZE,  /* WIDTHxHEIGHT of an image, as the scene checks it: two int fields */
    BLOCK, /* WIDTHxHEIGHT threads per block, 1 to 1024 in all: two int fields */
};

/* Who takes an option a program does not: what its refusal says. */
enum home {
    EVERY_PROGRAM,      /* never refused */
    GPU_STAGES,         /* a GPU stage that takes it (or all of them) */
    CPU_REFERENCES,     /* build/cpu-reference and build/pt-reference */
    PATH_TRACING_TRACK, /* the path-tracing stages and build/pt-reference */
    SEGMENT_STAGES,     /* the path-tracing stages with a kernel per segment (p01-p07) */
    LISTED_STAGES,      /* the stages whose --help lists it */
    PT_REFERENCE,       /* build/pt-reference */
};

/* Where the usage text's {default} comes from. */
enum usage_default {
    NO_DEFAULT,
    DEFAULT_SCENE,  /* the track's benchmark scene */
    DEFAULT_OUTPUT, /* no image for a stage; a reference must write one */
    DEFAULT_BLOCK,  /* the stage's block */
    DEFAULT_RAYS,   /* the stage's --rays-per-thread */
};

enum manifest_track { NO_MANIFEST, MANIFEST_MAIN, MANIFEST_PT, MANIFEST_BOTH };

struct option_row {
    const char *name;
    const char *value;   /* its value in the usage text; NULL for a flag */
    const char *set;     /* the name a program's accepted list holds; NULL: every program */
    enum value_kind kind;
    size_t field, second_field; /* offsetof(struct options, ...); the height for WxH */
    long long min, max;
    const char *not_a;   /* a count's refusal: "a count from %lld to %lld" by default */
    enum home home;
    const char *note;    /* added to "not available in this stage" */
    enum manifest_track manifest;
    enum usage_default usage_default;
    const char *usage;   /* {min}, {max}, {default}; each '\n' starts an indented line */
};

#define FIELD(name) offsetof(struct options, name)

static const struct option_row option_rows[] = {
    {.name = "--scene", .value = "FILE", .kind = TEXT, .field = FIELD(scene_path),
     .home = EVERY_PROGRAM, .usage_default = DEFAULT_SCENE,
     .usage = "scene to render (default {default}; started outside the\n"
              "repository, the one beside the executable's build folder)"},
    {.name = "--size", .value = "WxH", .kind = SIZE, .field = FIELD(width),
     .second_field = FIELD(height), .min = SCENE_MIN_SIDE, .max = SCENE_MAX_SIDE,
     .home = EVERY_PROGRAM, .usage = "override the scene's image size ({min} to {max} per side)"},
    {.name = "--output", .value = "FILE", .kind = TEXT, .field = FIELD(output_path),
     .home = EVERY_PROGRAM, .usage_default = DEFAULT_OUTPUT,
     .usage = "write the image, .png or .ppm ({default})"},
    {.name = "--csv", .set = "--csv", .kind = FLAG, .field = FIELD(csv), .home = GPU_STAGES,
     .usage = "print the timings as CSV, one line per phase and metric"},
    {.name = "--device", .value = "N", .set = "--device", .kind = COUNT, .field = FIELD(device),
     .min = 0, .max = MAX_DEVICE_INDEX, .not_a = "a device index (%lld to %lld)",
     .home = GPU_STAGES, .usage = "CUDA device to use (default 0)"},
    {.name = "--block", .value = "WxH", .set = "--block", .kind = BLOCK, .field = FIELD(block_x),
     .second_field = FIELD(block_y), .min = 1, .max = MAX_BLOCK_SIDE, .home = GPU_STAGES,
     .note = " (its block size is fixed; stage 03 makes it an option)",
     .manifest = MANIFEST_MAIN, .usage_default = DEFAULT_BLOCK,
     .usage = "threads per block (default {default})"},
    {.name = "--rays-per-thread", .value = "N", .set = "--rays-per-thread", .kind = COUNT,
     .field = FIELD(rays_per_thread), .min = 1, .max = OPTIONS_MAX_RAYS_PER_THREAD,
     .home = GPU_STAGES, .manifest = MANIFEST_MAIN, .usage_default = DEFAULT_RAYS,
     .usage = "pixels each thread traces, {min} to {max} (default {default})"},
    {.name = "--frames", .value = "N", .set = "--frames", .kind = COUNT, .field = FIELD(frames),
     .min = 1, .max = OPTIONS_MAX_FRAMES, .home = GPU_STAGES, .manifest = MANIFEST_MAIN,
     .usage = "render N frames reusing every allocation; the report adds\n"
              "the steady-state time per frame (frames 2..N), {min} to {max}\n"
              "(default 1)"},
    {.name = "--gpus", .value = "N", .set = "--gpus", .kind = COUNT, .field = FIELD(gpus),
     .min = 1, .max = OPTIONS_MAX_GPUS, .home = GPU_STAGES,
     .note = " (it renders on one GPU, --device)", .manifest = MANIFEST_BOTH,
     .usage = "split each frame over N GPUs (its rows; a path tracer's, its\n"
              "samples): --device and the N - 1 after it, {min} to {max}\n"
              "(default: every GPU from --device on)"},
    {.name = "--rendezvous", .value = "FILE", .set = "--rendezvous", .kind = TEXT,
     .field = FIELD(rendezvous), .home = GPU_STAGES,
     .note = " (it runs as one process, not one a GPU)", .manifest = MANIFEST_MAIN,
     .usage = "where rank 0 leaves the other ranks the communicator's id: a\n"
              "file every rank sees (default /tmp/raytracer-rendezvous-JOB.id,\n"
              "JOB the launcher's job id: the ranks of one node only)"},
    {.name = "--rendezvous-timeout", .value = "S", .set = "--rendezvous", .kind = COUNT,
     .field = FIELD(rendezvous_timeout), .min = 1, .max = OPTIONS_MAX_RENDEZVOUS_TIMEOUT,
     .home = GPU_STAGES, .note = " (it runs as one process, not one a GPU)",
     .usage = "seconds a rank waits for the others to join, {min} to {max}\n(default 60)"},
    {.name = "--samples", .value = "N", .set = "--samples", .kind = COUNT, .field = FIELD(samples),
     .min = 1, .max = OPTIONS_MAX_SAMPLES, .home = PATH_TRACING_TRACK,
     .usage = "samples per pixel, {min} to {max} (default: the scene's)"},
    {.name = "--record", .value = "DIR", .set = "--record", .kind = TEXT,
     .field = FIELD(record_dir),
     .home = SEGMENT_STAGES, .manifest = MANIFEST_PT,
     .usage = "save frame 0's paths before one segment for the kernel\n"
              "benchmark (build/<stage>-bench DIR); DIR is created"},
    {.name = "--record-segment", .value = "K", .set = "--record", .kind = COUNT,
     .field = FIELD(record_segment), .min = 0, .max = OPTIONS_MAX_SEGMENT, .home = SEGMENT_STAGES,
     .usage = "which segment, 0 to the scene's max_depth - 1 (default 1)"},
    {.name = "--tiles", .value = "N", .set = "--tiles", .kind = COUNT, .field = FIELD(tiles),
     .min = 1, .max = OPTIONS_MAX_TILES, .home = LISTED_STAGES, .manifest = MANIFEST_PT,
     .usage = "render each frame in N x N tiles, one launch each, {min} to {max}\n(default 1)"},
    {.name = "--estimator", .value = "E", .set = "--estimator", .kind = TEXT,
     .field = FIELD(estimator), .home = PT_REFERENCE,
     .usage = "what a sample estimates: path (default), nee (next-event\n"
              "estimation), light-pool (nee from a shared pool of lights) or\n"
              "reservoirs (nee whose camera-ray hits reuse their previous\n"
              "frame's and neighbours' reservoirs: ReSTIR)"},
    {.name = "--threads", .value = "N", .set = "--threads", .kind = COUNT, .field = FIELD(threads),
     .min = 1, .max = MAX_THREADS, .home = CPU_REFERENCES,
     .usage = "CPU threads (default: one per core)"},
    {.name = "--help", .kind = FLAG, .field = FIELD(help), .home = EVERY_PROGRAM,
     .usage = "this text"},
};

#define OPTION_ROWS (sizeof option_rows / sizeof *option_rows)

/* ---- which rows a program takes -------------------------------------------------------------- */

static int names_word(const char *list, const char *word)
{
    size_t length = strlen(word);
    for (const char *at = list; (at = strstr(at, word)) != NULL; at += length)
        if ((at == list || at[-1] == ' ' || at[-1] == '\t') &&
            (at[length] == '\0' || at[length] == ' ' || at[length] == '\t'))
            return 1;
    return 0;
}

int options_known(const char *name)
{
    for (size_t i = 0; i < OPTION_ROWS; ++i)
        if (option_rows[i].set && strcmp(option_rows[i].set, name) == 0)
            return 1;
    return 0;
}

/* taken[i]: whether the program takes row i. A name in the list that no row's set is, is a
 * mistake in the program (or in a stage's manifest, which tools/stages check should have
 * caught): said once, and the program ends. */
static void rows_taken(const char *accepted, int taken[OPTION_ROWS])
{
    accepted = accepted ? accepted : "";
    for (const char *word = accepted; *word;) {
        size_t length = strcspn(word, " \t");
        if (length > 0) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)length, word);
            if (length >= sizeof name || !options_known(name)) {
                fprintf(stderr,
                        "error: this program accepts '%.*s', which is no option "
                        "(common/runtime/options.c)\n",
                        (int)length, word);
                exit(1);
            }
        }
        word += length;
        word += strspn(word, " \t");
    }
    for (size_t i = 0; i < OPTION_ROWS; ++i)
        taken[i] = !option_rows[i].set || names_word(accepted, option_rows[i].set);
}

/* ---- values -------------------------------------------------------------------------------- */

/* 0 and *value for a whole number in min..max; -1 for text that is not a whole number; -2 for a
 * whole number out of range (however many digits it has), so that the message can say which. */
static int parse_whole(const char *text, long long min, long long max, long long *value)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0')
        return -1;
    if (errno == ERANGE || v < min || v > max)
        return -2;
    *value = v;
    return 0;
}

int options_parse_size(const char *text, long long *width, long long *height)
{
    const char *x = strchr(text, 'x');
    if (!x || x == text || strlen(x + 1) == 0 || strlen(text) > 40)
        return -1;
    char left[48];
    memcpy(left, text, (size_t)(x - text));
    left[x - text] = '\0';
    /* Sides are parsed against a generous bound first so that "0x0" and "100000x100000"
     * reach the size check, which names the real limits; a side of more digits than that bound
     * is -2, "too large", not "not WxH". */
    int w = parse_whole(left, 0, 1000000000LL, width), h = parse_whole(x + 1, 0, 1000000000LL, height);
    if (w == -1 || h == -1)
        return -1;
    return w || h ? -2 : 0;
}

static int *int_field(struct options *o, size_t offset)
{
    return (int *)((char *)o + offset);
}

/* Reads the value of row r into o; 0, or -1 with the message. */
static int read_value(const struct option_row *r, const char *text, struct options *o,
                      char *error, size_t error_size)
{
    long long a = 0, b = 0;
    int why;
    switch (r->kind) {
    case FLAG:
        *int_field(o, r->field) = 1;
        return 0;
    case TEXT:
        *(const char **)((char *)o + r->field) = text;
        return 0;
    case COUNT:
        why = parse_whole(text, r->min, r->max, &a);
        if (why == -2) {
            snprintf(error, error_size, "%s '%.40s' is out of range (%lld to %lld)", r->name, text,
                     r->min, r->max);
            return -1;
        }
        if (why) {
            char what[64];
            snprintf(what, sizeof what, r->not_a ? r->not_a : "a count from %lld to %lld", r->min,
                     r->max);
            snprintf(error, error_size, "%s '%.40s' is not %s", r->name, text, what);
            return -1;
        }
        *int_field(o, r->field) = (int)a;
        return 0;
    case SIZE:
        why = options_parse_size(text, &a, &b);
        if (why == -2) {
            snprintf(error, error_size, "%s '%.40s' is too large (each side at most %lld)",
                     r->name, text, r->max);
            return -1;
        }
        if (why) {
            snprintf(error, error_size, "%s '%.40s' is not WIDTHxHEIGHT (e.g. 1024x768)", r->name,
                     text);
            return -1;
        }
        if (scene_check_size(a, b, error, error_size))
            return -1;
        break;
    case BLOCK:
        if (options_parse_size(text, &a, &b) || a < r->min || b < r->min || a > r->max ||
            b > r->max || a * b > 1024) {
            snprintf(error, error_size,
                     "%s '%.40s' is not WIDTHxHEIGHT with 1 to 1024 threads in all (e.g. 32x32)",
                     r->name, text);
            return -1;
        }
        break;
    }
    *int_field(o, r->field) = (int)a;
    *int_field(o, r->second_field) = (int)b;
    return 0;
}

/* What a program that does not take row r says, by who does take it. */
static void refuse(const struct option_row *r, const int taken[OPTION_ROWS], char *error,
                   size_t error_size)
{
    int gpu = 0, path_tracing = 0;
    for (size_t i = 0; i < OPTION_ROWS; ++i) {
        gpu |= taken[i] && option_rows[i].home == GPU_STAGES;
        path_tracing |= taken[i] && option_rows[i].home == PATH_TRACING_TRACK;
    }
    switch (r->home) {
    case EVERY_PROGRAM:
        break;
    case GPU_STAGES:
        if (!gpu)
            snprintf(error, error_size,
                     "option %s is for the GPU stages; the CPU reference renders on the CPU "
                     "(its own option: --threads)",
                     r->name);
        else
            snprintf(error, error_size, "option %s is not available in this stage%s", r->name,
                     r->note ? r->note : "");
        return;
    case CPU_REFERENCES:
        snprintf(error, error_size,
                 "option %s is for the CPU reference; a stage renders on the GPU", r->name);
        return;
    case PATH_TRACING_TRACK:
        snprintf(error, error_size,
                 "option %s is for the path-tracing track (build/pNN-*, build/pt-reference)",
                 r->name);
        return;
    case SEGMENT_STAGES:
        if (path_tracing && gpu)
            snprintf(error, error_size,
                     "option %s saves a segment for the kernel benchmark, which times an "
                     "intersection and a scatter kernel apart (p01-p07a); this stage has no such "
                     "pair of kernels",
                     r->name);
        else
            snprintf(error, error_size, "option %s is for the path-tracing stages (build/pNN-*)%s",
                     r->name, path_tracing ? ", not the CPU reference" : "");
        return;
    case LISTED_STAGES:
        snprintf(error, error_size,
                 "option %s is not available in this stage (its --help lists its options)",
                 r->name);
        return;
    case PT_REFERENCE:
        snprintf(error, error_size,
                 "option %s is for build/pt-reference; a stage's estimator is its lesson (its "
                 "--help names it)",
                 r->name);
        return;
    }
    snprintf(error, error_size, "option %s is not available here", r->name);
}

/* ---- the default scene ---------------------------------------------------------------------- */

/* The default scene when the program is started outside the repository's root: the scenes/
 * folder beside the build folder the executable is in (build/NAME -> ../scenes/...). */
static char default_scene_beside_executable[MAX_PATH_BYTES];

static const char *resolve_default_scene(const char *relative)
{
    if (access(relative, F_OK) == 0)
        return relative;
    char executable[MAX_PATH_BYTES];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0)
        return relative;
    executable[length] = '\0';
    /* Up from the executable's folder, at most three levels (build/, build/tests/, ...). */
    for (int up = 1; up <= 3; ++up) {
        char *slash = strrchr(executable, '/');
        if (!slash)
            break;
        *slash = '\0';
        int n = snprintf(default_scene_beside_executable, sizeof default_scene_beside_executable,
                         "%s/%s", executable, relative);
        if (n > 0 && (size_t)n < sizeof default_scene_beside_executable &&
            access(default_scene_beside_executable, F_OK) == 0)
            return default_scene_beside_executable;
    }
    return relative;
}

static int takes_samples(const int taken[OPTION_ROWS])
{
    for (size_t i = 0; i < OPTION_ROWS; ++i)
        if (taken[i] && option_rows[i].home == PATH_TRACING_TRACK)
            return 1;
    return 0;
}

/* ---- the parser ----------------------------------------------------------------------------- */

static const struct option_row *row_named(const char *name)
{
    if (strcmp(name, "-h") == 0)
        name = "--help";
    for (size_t i = 0; i < OPTION_ROWS; ++i)
        if (strcmp(option_rows[i].name, name) == 0)
            return &option_rows[i];
    return NULL;
}

int options_parse(int argc, char **argv, const char *accepted, struct options *o, char *error,
                  size_t error_size)
{
    int taken[OPTION_ROWS];
    rows_taken(accepted, taken);
    memset(o, 0, sizeof *o);
    o->scene_path = takes_samples(taken) ? OPTIONS_DEFAULT_PT_SCENE : OPTIONS_DEFAULT_SCENE;
    o->record_segment = -1;
    for (int i = 1; i < argc; ++i) {
        const struct option_row *r = row_named(argv[i]);
        if (!r) {
            snprintf(error, error_size, "unknown option '%.60s'", argv[i]);
            return -1;
        }
        if (!taken[r - option_rows]) {
            refuse(r, taken, error, error_size);
            return -1;
        }
        const char *value = NULL;
        if (r->kind != FLAG) {
            /* An empty value is refused by the option's name: '' is most often a shell variable
             * that was never set, and taken as a path or a name it would fail later with a
             * message about a file called '' (or not at all). */
            if (i + 1 >= argc) {
                snprintf(error, error_size, "option %s needs a value", argv[i]);
                return -1;
            }
            if (argv[i + 1][0] == '\0') {
                snprintf(error, error_size, "option %s needs a value, not an empty one", argv[i]);
                return -1;
            }
            value = argv[++i];
        }
        if (read_value(r, value, o, error, error_size))
            return -1;
        if (r->field == FIELD(scene_path))
            o->scene_given = 1;
    }
    if (!o->scene_given)
        o->scene_path = resolve_default_scene(o->scene_path);
    return 0;
}

/* ---- the usage text ------------------------------------------------------------------------- */

/* Writes text with {min}, {max} and {default} filled in, each '\n' followed by the indent. */
static void write_usage_text(FILE *out, const char *text, const struct option_row *r,
                             const char *default_text)
{
    for (const char *c = text; *c; ++c) {
        if (strncmp(c, "{min}", 5) == 0) {
            fprintf(out, "%lld", r->min);
            c += 4;
        } else if (strncmp(c, "{max}", 5) == 0) {
            fprintf(out, "%lld", r->max);
            c += 4;
        } else if (strncmp(c, "{default}", 9) == 0) {
            fputs(default_text, out);
            c += 8;
        } else if (*c == '\n') {
            fputs("\n                  ", out);
        } else {
            fputc(*c, out);
        }
    }
    fputc('\n', out);
}

void options_print_usage(FILE *out, const char *program, const char *accepted,
                         const char *default_block, int default_rays_per_thread)
{
    int taken[OPTION_ROWS];
    rows_taken(accepted, taken);
    int gpu = 0;
    for (size_t i = 0; i < OPTION_ROWS; ++i)
        gpu |= taken[i] && option_rows[i].home == GPU_STAGES;
    fprintf(out, "usage: %s [options]\n\noptions:\n", program);
    for (size_t i = 0; i < OPTION_ROWS; ++i) {
        const struct option_row *r = &option_rows[i];
        if (!taken[i])
            continue;
        char default_text[64] = "";
        switch (r->usage_default) {
        case NO_DEFAULT:
            break;
        case DEFAULT_SCENE:
            snprintf(default_text, sizeof default_text, "%s",
                     takes_samples(taken) ? OPTIONS_DEFAULT_PT_SCENE : OPTIONS_DEFAULT_SCENE);
            break;
        case DEFAULT_OUTPUT:
            /* The stages write an image only when asked; the references exist to write one,
             * and refuse to run without --output. */
            snprintf(default_text, sizeof default_text, "%s",
                     gpu ? "default: no image" : "required");
            break;
        case DEFAULT_BLOCK:
            snprintf(default_text, sizeof default_text, "%s", default_block ? default_block : "");
            break;
        case DEFAULT_RAYS:
            snprintf(default_text, sizeof default_text, "%d", default_rays_per_thread);
            break;
        }
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", r->name, r->value ? " " : "",
                 r->value ? r->value : "");
        fprintf(out, "  %-*s", strlen(head) + 2 <= 16 ? 16 : (int)strlen(head) + 2, head);
        write_usage_text(out, r->usage, r, default_text);
    }
    if (gpu)
        fprintf(out,
                "\nexit status: 0 rendered, 1 CUDA or system failure, 2 bad input or no GPU\n");
}
