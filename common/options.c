#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scene.h"

#define MAX_PATH_BYTES 4096

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

/* The options beyond those every program takes, as bits of the set a program accepts. */
enum option_bit {
    OPTION_GPU = 1 << 0,             /* --csv, --device */
    OPTION_BLOCK = 1 << 1,           /* --block WxH */
    OPTION_THREADS = 1 << 2,         /* --threads N (the CPU references) */
    OPTION_RAYS_PER_THREAD = 1 << 3, /* --rays-per-thread N */
    OPTION_FRAMES = 1 << 4,          /* --frames N (steady state) */
    OPTION_SAMPLES = 1 << 5,         /* --samples N: the path-tracing track (its default scene too) */
    OPTION_RECORD = 1 << 6,          /* --record DIR, --record-segment K */
    OPTION_TILES = 1 << 7,           /* --tiles N */
    OPTION_ESTIMATOR = 1 << 8,       /* --estimator NAME (build/pt-reference) */
};

static const struct {
    const char *name;
    unsigned bit;
} option_names[] = {
    {"--csv", OPTION_GPU},
    {"--device", OPTION_GPU},
    {"--block", OPTION_BLOCK},
    {"--threads", OPTION_THREADS},
    {"--rays-per-thread", OPTION_RAYS_PER_THREAD},
    {"--frames", OPTION_FRAMES},
    {"--samples", OPTION_SAMPLES},
    {"--record", OPTION_RECORD},
    {"--tiles", OPTION_TILES},
    {"--estimator", OPTION_ESTIMATOR},
};

static unsigned option_bit_of(const char *name, size_t length)
{
    for (size_t i = 0; i < sizeof option_names / sizeof *option_names; ++i)
        if (strlen(option_names[i].name) == length && strncmp(option_names[i].name, name, length) == 0)
            return option_names[i].bit;
    return 0;
}

int options_known(const char *name)
{
    return option_bit_of(name, strlen(name)) != 0;
}

/* The bits of a list of names. A name no program may take is a mistake in the program (or in a
 * stage's manifest, which tools/stages check should have caught): said once, and the program
 * ends. */
static unsigned accepted_bits(const char *accepted)
{
    unsigned bits = 0;
    for (const char *word = accepted ? accepted : ""; *word;) {
        size_t length = strcspn(word, " \t");
        if (length > 0) {
            unsigned bit = option_bit_of(word, length);
            if (!bit) {
                fprintf(stderr, "error: this program accepts '%.*s', which is no option (common/options.h)\n",
                        (int)length, word);
                exit(1);
            }
            bits |= bit;
        }
        word += length;
        word += strspn(word, " \t");
    }
    return bits;
}

#define MAX_BLOCK_SIDE 1024
#define MAX_DEVICE_INDEX 1024
#define MAX_THREADS 4096

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

/* The message for a count option that parse_whole refused. */
static void count_error(const char *option, const char *text, int why, long long min,
                        long long max, char *error, size_t error_size)
{
    if (why == -2)
        snprintf(error, error_size, "%s '%.40s' is out of range (%lld to %lld)", option, text, min,
                 max);
    else
        snprintf(error, error_size, "%s '%.40s' is not a count from %lld to %lld", option, text,
                 min, max);
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

/* Every option that takes a value comes here, and an empty value is refused here, by the
 * option's name: '' is most often a shell variable that was never set, and taken as a path or a
 * name it would fail later with a message about a file called '' (or not at all). */
static int needs_value(int argc, char **argv, int i, char *error, size_t error_size)
{
    if (i + 1 >= argc) {
        snprintf(error, error_size, "option %s needs a value", argv[i]);
        return -1;
    }
    if (argv[i + 1][0] == '\0') {
        snprintf(error, error_size, "option %s needs a value, not an empty one", argv[i]);
        return -1;
    }
    return 0;
}

int options_parse(int argc, char **argv, const char *accepted_names, struct options *o,
                  char *error, size_t error_size)
{
    unsigned accepted = accepted_bits(accepted_names);
    memset(o, 0, sizeof *o);
    o->scene_path = (accepted & OPTION_SAMPLES) ? OPTIONS_DEFAULT_PT_SCENE : OPTIONS_DEFAULT_SCENE;
    o->record_segment = -1;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        long long a, b;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            o->help = 1;
        } else if (strcmp(arg, "--scene") == 0) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            o->scene_path = argv[++i];
            o->scene_given = 1;
        } else if (strcmp(arg, "--size") == 0) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = options_parse_size(argv[++i], &a, &b);
            if (why == -2) {
                snprintf(error, error_size, "--size '%.40s' is too large (each side at most %d)",
                         argv[i], SCENE_MAX_SIDE);
                return -1;
            }
            if (why) {
                snprintf(error, error_size, "--size '%.40s' is not WIDTHxHEIGHT (e.g. 1024x768)",
                         argv[i]);
                return -1;
            }
            if (scene_check_size(a, b, error, error_size))
                return -1;
            o->width = (int)a;
            o->height = (int)b;
        } else if (strcmp(arg, "--output") == 0) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            o->output_path = argv[++i];
        } else if (strcmp(arg, "--csv") == 0 && (accepted & OPTION_GPU)) {
            o->csv = 1;
        } else if (strcmp(arg, "--device") == 0 && (accepted & OPTION_GPU)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 0, MAX_DEVICE_INDEX, &a);
            if (why) {
                snprintf(error, error_size,
                         why == -2 ? "--device '%.40s' is out of range (0 to %d)"
                                   : "--device '%.40s' is not a device index (0 to %d)",
                         argv[i], MAX_DEVICE_INDEX);
                return -1;
            }
            o->device = (int)a;
        } else if (strcmp(arg, "--block") == 0 && (accepted & OPTION_BLOCK)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            if (options_parse_size(argv[++i], &a, &b) || a < 1 || b < 1 ||
                a > MAX_BLOCK_SIDE || b > MAX_BLOCK_SIDE || a * b > 1024) {
                snprintf(error, error_size,
                         "--block '%.40s' is not WIDTHxHEIGHT with 1 to 1024 threads in all "
                         "(e.g. 32x32)",
                         argv[i]);
                return -1;
            }
            o->block_x = (int)a;
            o->block_y = (int)b;
        } else if (strcmp(arg, "--threads") == 0 && (accepted & OPTION_THREADS)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 1, MAX_THREADS, &a);
            if (why) {
                count_error("--threads", argv[i], why, 1, MAX_THREADS, error, error_size);
                return -1;
            }
            o->threads = (int)a;
        } else if (strcmp(arg, "--rays-per-thread") == 0 && (accepted & OPTION_RAYS_PER_THREAD)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 1, OPTIONS_MAX_RAYS_PER_THREAD, &a);
            if (why) {
                count_error("--rays-per-thread", argv[i], why, 1, OPTIONS_MAX_RAYS_PER_THREAD, error,
                            error_size);
                return -1;
            }
            o->rays_per_thread = (int)a;
        } else if (strcmp(arg, "--frames") == 0 && (accepted & OPTION_FRAMES)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 1, OPTIONS_MAX_FRAMES, &a);
            if (why) {
                count_error("--frames", argv[i], why, 1, OPTIONS_MAX_FRAMES, error, error_size);
                return -1;
            }
            o->frames = (int)a;
        } else if (strcmp(arg, "--samples") == 0 && (accepted & OPTION_SAMPLES)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 1, OPTIONS_MAX_SAMPLES, &a);
            if (why) {
                count_error("--samples", argv[i], why, 1, OPTIONS_MAX_SAMPLES, error, error_size);
                return -1;
            }
            o->samples = (int)a;
        } else if (strcmp(arg, "--record") == 0 && (accepted & OPTION_RECORD)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            o->record_dir = argv[++i];
        } else if (strcmp(arg, "--record-segment") == 0 && (accepted & OPTION_RECORD)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 0, OPTIONS_MAX_SEGMENT, &a);
            if (why) {
                count_error("--record-segment", argv[i], why, 0, OPTIONS_MAX_SEGMENT, error,
                            error_size);
                return -1;
            }
            o->record_segment = (int)a;
        } else if (strcmp(arg, "--tiles") == 0 && (accepted & OPTION_TILES)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            int why = parse_whole(argv[++i], 1, OPTIONS_MAX_TILES, &a);
            if (why) {
                count_error("--tiles", argv[i], why, 1, OPTIONS_MAX_TILES, error, error_size);
                return -1;
            }
            o->tiles = (int)a;
        } else if (strcmp(arg, "--estimator") == 0 && (accepted & OPTION_ESTIMATOR)) {
            if (needs_value(argc, argv, i, error, error_size))
                return -1;
            o->estimator = argv[++i];
        } else if ((accepted & OPTION_SAMPLES) && (accepted & OPTION_GPU) &&
                   (strcmp(arg, "--record") == 0 || strcmp(arg, "--record-segment") == 0)) {
            snprintf(error, error_size,
                     "option %s saves a segment for the kernel benchmark of the stages with a "
                     "kernel per segment (p01-p07); this stage traces whole paths in one kernel",
                     arg);
            return -1;
        } else if (strcmp(arg, "--tiles") == 0) {
            snprintf(error, error_size,
                     "option --tiles is not available in this stage (its --help lists its options)");
            return -1;
        } else if (strcmp(arg, "--estimator") == 0) {
            snprintf(error, error_size,
                     "option --estimator is for build/pt-reference; a stage's estimator is its "
                     "lesson (its --help names it)");
            return -1;
        } else if (strcmp(arg, "--samples") == 0 || strcmp(arg, "--record") == 0 ||
                   strcmp(arg, "--record-segment") == 0) {
            int stages_only = (accepted & OPTION_SAMPLES) || strcmp(arg, "--samples") != 0;
            snprintf(error, error_size,
                     stages_only ? "option %s is for the path-tracing stages (build/pNN-*)%s"
                                 : "option %s is for the path-tracing track (build/pNN-*, "
                                   "build/pt-reference)%s",
                     arg, (accepted & OPTION_SAMPLES) ? ", not the CPU reference" : "");
            return -1;
        } else if (!(accepted & OPTION_GPU) &&
                   (strcmp(arg, "--csv") == 0 || strcmp(arg, "--device") == 0 ||
                    strcmp(arg, "--block") == 0 || strcmp(arg, "--rays-per-thread") == 0 ||
                    strcmp(arg, "--frames") == 0)) {
            /* Only the CPU reference parses without OPTION_GPU. */
            snprintf(error, error_size,
                     "option %s is for the GPU stages; the CPU reference renders on the CPU "
                     "(its own option: --threads)",
                     arg);
            return -1;
        } else if (strcmp(arg, "--threads") == 0) {
            snprintf(error, error_size,
                     "option --threads is for the CPU reference; a stage renders on the GPU");
            return -1;
        } else if (strcmp(arg, "--rays-per-thread") == 0 || strcmp(arg, "--frames") == 0) {
            snprintf(error, error_size, "option %s is not available in this stage", arg);
            return -1;
        } else if (strcmp(arg, "--block") == 0) {
            snprintf(error, error_size,
                     "option --block is not available in this stage (its block size is fixed; "
                     "stage 03 makes it an option)");
            return -1;
        } else {
            snprintf(error, error_size, "unknown option '%.60s'", arg);
            return -1;
        }
    }
    if (!o->scene_given)
        o->scene_path = resolve_default_scene(o->scene_path);
    return 0;
}

void options_print_usage(FILE *out, const char *program, const char *accepted_names,
                         const char *default_block, int default_rays_per_thread)
{
    unsigned accepted = accepted_bits(accepted_names);
    fprintf(out, "usage: %s [options]\n\noptions:\n", program);
    fprintf(out,
            "  --scene FILE    scene to render (default %s; started outside the\n"
            "                  repository, the one beside the executable's build folder)\n",
            (accepted & OPTION_SAMPLES) ? OPTIONS_DEFAULT_PT_SCENE : OPTIONS_DEFAULT_SCENE);
    fprintf(out, "  --size WxH      override the scene's image size (%d to %d per side)\n",
            SCENE_MIN_SIDE, SCENE_MAX_SIDE);
    /* The stages write an image only when asked; the references (no GPU options) exist to
     * write one, and refuse to run without --output. */
    fprintf(out, "  --output FILE   write the image, .png or .ppm (%s)\n",
            (accepted & OPTION_GPU) ? "default: no image" : "required");
    if (accepted & OPTION_GPU) {
        fprintf(out, "  --csv           print the timings as CSV, one line per phase and metric\n");
        fprintf(out, "  --device N      CUDA device to use (default 0)\n");
    }
    if (accepted & OPTION_BLOCK)
        fprintf(out, "  --block WxH     threads per block (default %s)\n", default_block);
    if (accepted & OPTION_RAYS_PER_THREAD)
        fprintf(out, "  --rays-per-thread N  pixels each thread traces, 1 to %d (default %d)\n",
                OPTIONS_MAX_RAYS_PER_THREAD, default_rays_per_thread);
    if (accepted & OPTION_FRAMES)
        fprintf(out,
                "  --frames N      render N frames reusing every allocation; the report adds\n"
                "                  the steady-state time per frame (frames 2..N), 1 to %d\n"
                "                  (default 1)\n",
                OPTIONS_MAX_FRAMES);
    if (accepted & OPTION_SAMPLES)
        fprintf(out, "  --samples N     samples per pixel, 1 to %d (default: the scene's)\n",
                OPTIONS_MAX_SAMPLES);
    if (accepted & OPTION_RECORD)
        fprintf(out,
                "  --record DIR    save frame 0's paths before one segment for the kernel\n"
                "                  benchmark (build/<stage>-bench DIR); DIR is created\n"
                "  --record-segment K  which segment, 0 to the scene's max_depth - 1 (default 1)\n");
    if (accepted & OPTION_TILES)
        fprintf(out,
                "  --tiles N       render each frame in N x N tiles, one launch each, 1 to %d\n"
                "                  (default 1)\n",
                OPTIONS_MAX_TILES);
    if (accepted & OPTION_ESTIMATOR)
        fprintf(out,
                "  --estimator E   what a sample estimates: path (default), nee (next-event\n"
                "                  estimation), light-pool (nee from a shared pool of lights) or\n"
                "                  reservoirs (nee whose camera-ray hits reuse their previous\n"
                "                  frame's and neighbours' reservoirs: ReSTIR)\n");
    if (accepted & OPTION_THREADS)
        fprintf(out, "  --threads N     CPU threads (default: one per core)\n");
    fprintf(out, "  --help          this text\n");
    if (accepted & OPTION_GPU)
        fprintf(out, "\nexit status: 0 rendered, 1 CUDA or system failure, 2 bad input or no GPU\n");
}
