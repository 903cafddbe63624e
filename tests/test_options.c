/* The command line shared by every stage. */
#include "test_support.h"

#include "runtime/options.h"

/* What a program accepts, as common/runtime/stage_main.c builds it: every stage's options, its
 * track's
 * (common/raytrace/rt_track.c, common/pathtrace/pt_track.c) and its manifest's. */
#define GPU_STAGE OPTIONS_GPU
#define BLOCK_STAGE OPTIONS_GPU " --block"
#define RAYS_STAGE OPTIONS_GPU " --block --rays-per-thread"
#define GPUS_STAGE OPTIONS_GPU " --block --frames --gpus"
#define RANKS_STAGE OPTIONS_GPU " --block --frames --rendezvous"
/* The path-tracing track: a stage with a kernel per segment, and the track's CPU reference. */
#define PT_STAGE OPTIONS_GPU " --samples --record"
#define PT_REFERENCE "--threads --samples"
#define CPU_REFERENCE "--threads"

static int parse(const char *accepted, struct options *o, char *error, int argc, ...)
{
    char *argv[16] = {"stage"};
    va_list args;
    va_start(args, argc);
    for (int i = 1; i < argc; ++i)
        argv[i] = va_arg(args, char *);
    va_end(args);
    return options_parse(argc, argv, accepted, o, error, OPTIONS_ERROR_BYTES);
}

static void defaults(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    assert_int_equal(parse(GPU_STAGE, &o, error, 1), 0);
    assert_string_equal(o.scene_path, "scenes/benchmark.scene");
    assert_int_equal(o.width, 0);
    assert_null(o.output_path);
    assert_int_equal(o.csv, 0);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.block_x, 0);
    assert_int_equal(o.rays_per_thread, 0);
    assert_int_equal(o.gpus, 0); /* 0: every GPU from --device on, for a stage that takes it */
    assert_int_equal(o.help, 0);
    assert_int_equal(parse(RAYS_STAGE, &o, error, 1), 0);
    assert_int_equal(o.rays_per_thread, 0); /* 0: the stage's default */
    assert_int_equal(o.samples, 0);
    assert_null(o.record_dir);
    assert_int_equal(o.record_segment, -1);
}

/* With --samples (the path-tracing track) the default scene is the track's. */
static void path_tracing_defaults(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    const char *sets[] = {PT_STAGE, PT_REFERENCE};
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(parse(sets[k], &o, error, 1), 0);
        assert_string_equal(o.scene_path, "scenes/pt-benchmark.scene");
        assert_string_equal(OPTIONS_DEFAULT_PT_SCENE, "scenes/pt-benchmark.scene");
        assert_int_equal(o.samples, 0); /* 0: the scene's */
        assert_null(o.record_dir);
        assert_int_equal(o.record_segment, -1); /* -1: not given (the stage's default) */
    }
    assert_int_equal(parse(PT_STAGE, &o, error, 3, "--scene", "x.scene"), 0);
    assert_string_equal(o.scene_path, "x.scene");
    /* --record alone does not change the default scene */
    assert_int_equal(parse(OPTIONS_GPU " --record", &o, error, 1), 0);
    assert_string_equal(o.scene_path, "scenes/benchmark.scene");
}

static void samples_and_record_are_read(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    const char *counts[] = {"1", "8", "1000", "65536"};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(parse(PT_STAGE, &o, error, 3, "--samples", counts[k]), 0);
        assert_int_equal(o.samples, atoi(counts[k]));
        assert_int_equal(parse(PT_REFERENCE, &o, error, 3, "--samples", counts[k]), 0);
        assert_int_equal(o.samples, atoi(counts[k]));
    }
    assert_int_equal(OPTIONS_MAX_SAMPLES, 65536);
    assert_int_equal(OPTIONS_MAX_SEGMENT, 63);
    assert_int_equal(parse(PT_STAGE, &o, error, 11, "--scene", "a.scene", "--record", "rec dir",
                           "--record-segment", "0", "--samples", "3", "--size", "16x8"),
                     0);
    assert_string_equal(o.scene_path, "a.scene");
    assert_string_equal(o.record_dir, "rec dir");
    assert_int_equal(o.record_segment, 0);
    assert_int_equal(o.samples, 3);
    assert_int_equal(o.width, 16);
    assert_int_equal(o.height, 8);
    assert_int_equal(parse(PT_STAGE, &o, error, 3, "--record-segment", "63"), 0);
    assert_int_equal(o.record_segment, 63);
    assert_null(o.record_dir); /* a segment alone records nothing */
    /* the last of a repeated option wins */
    assert_int_equal(parse(PT_STAGE, &o, error, 5, "--samples", "2", "--samples", "5"), 0);
    assert_int_equal(o.samples, 5);
    assert_int_equal(parse(PT_REFERENCE, &o, error, 5, "--threads", "3", "--samples", "7"), 0);
    assert_int_equal(o.threads, 3);
    assert_int_equal(o.samples, 7);
}

static void rays_per_thread_from_1_to_64(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    const char *counts[] = {"1", "3", "16", "64"};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(parse(RAYS_STAGE, &o, error, 3, "--rays-per-thread", counts[k]), 0);
        assert_int_equal(o.rays_per_thread, atoi(counts[k]));
    }
    assert_int_equal(parse(RAYS_STAGE, &o, error, 5, "--block", "8x8", "--rays-per-thread", "9"),
                     0);
    assert_int_equal(o.rays_per_thread, 9);
    assert_int_equal(o.block_x, 8);
    assert_int_equal(OPTIONS_MAX_RAYS_PER_THREAD, 64);
}

static void every_option_is_read(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    assert_int_equal(parse(BLOCK_STAGE, &o, error, 12, "--scene", "a.scene", "--size", "640x480",
                           "--output", "x.png", "--csv", "--device", "1", "--block", "8x4"),
                     0);
    assert_string_equal(o.scene_path, "a.scene");
    assert_int_equal(o.width, 640);
    assert_int_equal(o.height, 480);
    assert_string_equal(o.output_path, "x.png");
    assert_int_equal(o.csv, 1);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.block_x, 8);
    assert_int_equal(o.block_y, 4);
    assert_int_equal(parse(GPU_STAGE, &o, error, 2, "--help"), 0);
    assert_int_equal(o.help, 1);
}

static void gpus_from_1_to_64(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    const char *counts[] = {"1", "2", "8", "64"};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(parse(GPUS_STAGE, &o, error, 3, "--gpus", counts[k]), 0);
        assert_int_equal(o.gpus, atoi(counts[k]));
    }
    assert_int_equal(parse(GPUS_STAGE, &o, error, 7, "--device", "1", "--gpus", "3", "--frames",
                           "20"),
                     0);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.gpus, 3);
    assert_int_equal(o.frames, 20);
    assert_int_equal(OPTIONS_MAX_GPUS, 64);
}

/* A stage of one process a GPU (launcher: ranks): where its ranks meet, and how long they wait. */
static void rendezvous_and_its_timeout(void **state)
{
    (void)state;
    struct options o;
    char error[OPTIONS_ERROR_BYTES];
    assert_int_equal(parse(RANKS_STAGE, &o, error, 1), 0);
    assert_null(o.rendezvous);
    assert_int_equal(o.rendezvous_timeout, 0); /* the default: runtime/ranks.h's */
    assert_int_equal(parse(RANKS_STAGE, &o, error, 5, "--rendezvous", "/shared/meet.id",
                           "--rendezvous-timeout", "3600"),
                     0);
    assert_string_equal(o.rendezvous, "/shared/meet.id");
    assert_int_equal(o.rendezvous_timeout, 3600);
}

struct bad {
    const char *accepted;
    const char *args[3];
    const char *message;
};

static const struct bad bad_cases[] = {
    {GPU_STAGE, {"--frobnicate"}, "unknown option '--frobnicate'"},
    {GPU_STAGE, {"--size"}, "option --size needs a value"},
    {GPU_STAGE, {"--size", "640"}, "--size '640' is not WIDTHxHEIGHT (e.g. 1024x768)"},
    {GPU_STAGE, {"--size", "-5x5"}, "--size '-5x5' is not WIDTHxHEIGHT (e.g. 1024x768)"},
    {GPU_STAGE, {"--size", "64x48x2"}, "--size '64x48x2' is not WIDTHxHEIGHT"},
    {GPU_STAGE, {"--size", "0x0"}, "image size 0x0 is too small (each side at least 2)"},
    {GPU_STAGE, {"--size", "100000x100000"}, "image size 100000x100000 is too large (each side at most 32768)"},
    {GPU_STAGE, {"--device", "one"}, "--device 'one' is not a device index (0 to 1024)"},
    {GPU_STAGE, {"--device", "-1"}, "--device '-1' is not a device index"},
    {GPU_STAGE, {"--block", "32x32"}, "option --block is not available in this stage"},
    {BLOCK_STAGE, {"--block", "64x64"}, "--block '64x64' is not WIDTHxHEIGHT with 1 to 1024 threads"},
    {BLOCK_STAGE, {"--block", "0x8"}, "--block '0x8' is not WIDTHxHEIGHT with 1 to 1024 threads"},
    {CPU_REFERENCE, {"--csv"}, "option --csv is for the GPU stages; the CPU reference renders on the CPU"},
    {GPU_STAGE, {"--threads", "4"}, "option --threads is for the CPU reference; a stage renders on the GPU"},
    {CPU_REFERENCE, {"--threads", "99999999999999999999"}, "--threads '99999999999999999999' is out of range (1 to 4096)"},
    {GPU_STAGE, {"--size", "99999999999999999999x4"}, "--size '99999999999999999999x4' is too large (each side at most 32768)"},
    {CPU_REFERENCE, {"--threads", "0"}, "--threads '0' is out of range (1 to 4096)"},
    {RAYS_STAGE, {"--rays-per-thread"}, "option --rays-per-thread needs a value"},
    {RAYS_STAGE, {"--rays-per-thread", "0"}, "--rays-per-thread '0' is out of range (1 to 64)"},
    {RAYS_STAGE, {"--rays-per-thread", "65"}, "--rays-per-thread '65' is out of range (1 to 64)"},
    {RAYS_STAGE, {"--rays-per-thread", "-4"}, "--rays-per-thread '-4' is not a count from 1 to 64"},
    {RAYS_STAGE, {"--rays-per-thread", "4x"}, "--rays-per-thread '4x' is not a count from 1 to 64"},
    {RAYS_STAGE, {"--rays-per-thread", ""}, "option --rays-per-thread needs a value, not an empty one"},
    {RAYS_STAGE, {"--rays-per-thread", "99999999999999999999"}, "--rays-per-thread '99999999999999999999' is out of range (1 to 64)"},
    {BLOCK_STAGE, {"--rays-per-thread", "4"}, "option --rays-per-thread is not available in this stage"},
    {GPU_STAGE, {"--rays-per-thread"}, "option --rays-per-thread is not available in this stage"},
    {CPU_REFERENCE, {"--rays-per-thread", "4"}, "option --rays-per-thread is for the GPU stages"},
    /* --gpus: only the stages whose manifest lists it (chapter 6) */
    {GPUS_STAGE, {"--gpus"}, "option --gpus needs a value"},
    {GPUS_STAGE, {"--gpus", "0"}, "--gpus '0' is out of range (1 to 64)"},
    {GPUS_STAGE, {"--gpus", "65"}, "--gpus '65' is out of range (1 to 64)"},
    {GPUS_STAGE, {"--gpus", "-1"}, "--gpus '-1' is not a count from 1 to 64"},
    {GPUS_STAGE, {"--gpus", "two"}, "--gpus 'two' is not a count from 1 to 64"},
    {GPUS_STAGE, {"--gpus", ""}, "option --gpus needs a value, not an empty one"},
    {RAYS_STAGE, {"--gpus", "2"}, "option --gpus is not available in this stage (it renders on one GPU, --device)"},
    {PT_STAGE, {"--gpus", "2"}, "option --gpus is not available in this stage"},
    {CPU_REFERENCE, {"--gpus", "2"}, "option --gpus is for the GPU stages; the CPU reference renders on the CPU"},
    /* --rendezvous and --rendezvous-timeout: only a stage of one process a GPU (chapter 6) */
    {RANKS_STAGE, {"--rendezvous"}, "option --rendezvous needs a value"},
    {RANKS_STAGE, {"--rendezvous", ""}, "option --rendezvous needs a value, not an empty one"},
    {RANKS_STAGE, {"--rendezvous-timeout", "0"}, "--rendezvous-timeout '0' is out of range (1 to 3600)"},
    {RANKS_STAGE, {"--rendezvous-timeout", "soon"}, "--rendezvous-timeout 'soon' is not a count from 1 to 3600"},
    {RANKS_STAGE, {"--gpus", "2"}, "option --gpus is not available in this stage (it renders on one GPU, --device)"},
    {GPUS_STAGE, {"--rendezvous", "x"}, "option --rendezvous is not available in this stage (it runs as one process, not one a GPU)"},
    {GPUS_STAGE, {"--rendezvous-timeout", "5"}, "option --rendezvous-timeout is not available in this stage"},
    {CPU_REFERENCE, {"--rendezvous", "x"}, "option --rendezvous is for the GPU stages; the CPU reference renders on the CPU"},
    /* --samples: only the path-tracing track */
    {PT_STAGE, {"--samples"}, "option --samples needs a value"},
    {PT_STAGE, {"--samples", "0"}, "--samples '0' is out of range (1 to 65536)"},
    {PT_STAGE, {"--samples", "65537"}, "--samples '65537' is out of range (1 to 65536)"},
    {PT_REFERENCE, {"--samples", "70000"}, "--samples '70000' is out of range (1 to 65536)"},
    {PT_STAGE, {"--samples", "99999999999999999999"}, "--samples '99999999999999999999' is out of range (1 to 65536)"},
    {PT_STAGE, {"--samples", "-2"}, "--samples '-2' is not a count from 1 to 65536"},
    {PT_STAGE, {"--samples", "8x"}, "--samples '8x' is not a count from 1 to 65536"},
    {PT_REFERENCE, {"--samples", ""}, "option --samples needs a value, not an empty one"},
    {GPU_STAGE, {"--samples", "4"}, "option --samples is for the path-tracing track (build/pNN-*, build/pt-reference)"},
    {RAYS_STAGE, {"--samples", "4"}, "option --samples is for the path-tracing track"},
    {CPU_REFERENCE, {"--samples", "4"}, "option --samples is for the path-tracing track (build/pNN-*, build/pt-reference)"},
    /* --record, --record-segment: only the path-tracing stages */
    {PT_STAGE, {"--record"}, "option --record needs a value"},
    {PT_STAGE, {"--record-segment"}, "option --record-segment needs a value"},
    {PT_STAGE, {"--record-segment", "64"}, "--record-segment '64' is out of range (0 to 63)"},
    {PT_STAGE, {"--record-segment", "-1"}, "--record-segment '-1' is not a count from 0 to 63"},
    {PT_STAGE, {"--record-segment", "one"}, "--record-segment 'one' is not a count from 0 to 63"},
    {PT_REFERENCE, {"--record", "dir"}, "option --record is for the path-tracing stages (build/pNN-*), not the CPU reference"},
    {PT_REFERENCE, {"--record-segment", "1"}, "option --record-segment is for the path-tracing stages (build/pNN-*), not the CPU reference"},
    {GPU_STAGE, {"--record", "dir"}, "option --record is for the path-tracing"},
    {CPU_REFERENCE, {"--record-segment", "1"}, "option --record-segment is for the path-tracing"},
    /* the main chain's options on a path-tracing stage */
    {PT_STAGE, {"--block", "8x8"}, "option --block is not available in this stage"},
    {PT_STAGE, {"--rays-per-thread", "2"}, "option --rays-per-thread is not available in this stage"},
    {PT_STAGE, {"--frames", "2"}, "option --frames is not available in this stage"},
    {PT_STAGE, {"--threads", "2"}, "option --threads is for the CPU reference; a stage renders on the GPU"},
    {PT_REFERENCE, {"--csv"}, "option --csv is for the GPU stages; the CPU reference renders on the CPU"},
    {PT_STAGE, {"--size", "1x1"}, "image size 1x1 is too small (each side at least 2)"},
    /* An empty value ('', a shell variable never set) is refused by the option's name for every
     * option that takes a value, rather than read as a file called '' or a number. */
    {GPU_STAGE, {"--scene", ""}, "option --scene needs a value, not an empty one"},
    {GPU_STAGE, {"--size", ""}, "option --size needs a value, not an empty one"},
    {GPU_STAGE, {"--output", ""}, "option --output needs a value, not an empty one"},
    {GPU_STAGE, {"--device", ""}, "option --device needs a value, not an empty one"},
    {BLOCK_STAGE, {"--block", ""}, "option --block needs a value, not an empty one"},
    {CPU_REFERENCE, {"--threads", ""}, "option --threads needs a value, not an empty one"},
    {GPU_STAGE " --frames", {"--frames", ""}, "option --frames needs a value, not an empty one"},
    {PT_STAGE, {"--samples", ""}, "option --samples needs a value, not an empty one"},
    {PT_STAGE, {"--record", ""}, "option --record needs a value, not an empty one"},
    {PT_STAGE, {"--record-segment", ""}, "option --record-segment needs a value, not an empty one"},
    {OPTIONS_GPU " --samples --tiles", {"--tiles", ""}, "option --tiles needs a value, not an empty one"},
    {"--threads --samples --estimator", {"--estimator", ""}, "option --estimator needs a value, not an empty one"},
};

static void bad_options_are_named(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        char *argv[4] = {"stage"};
        int argc = 1;
        while (argc < 4 && bad_cases[k].args[argc - 1])
            argv[argc] = (char *)bad_cases[k].args[argc - 1], ++argc;
        struct options o;
        char error[OPTIONS_ERROR_BYTES] = "";
        int result = options_parse(argc, argv, bad_cases[k].accepted, &o, error, sizeof error);
        if (result == 0 || strstr(error, bad_cases[k].message) != error)
            print_message("# case %zu: got '%s'\n", k, error);
        assert_int_equal(result, -1);
        assert_ptr_equal(strstr(error, bad_cases[k].message), error);
    }
}

static void usage_lists_only_accepted_options(void **state)
{
    (void)state;
    char text[4096];
    FILE *out = fmemopen(text, sizeof text, "w");
    options_print_usage(out, "build/01-base", OPTIONS_GPU, "16x16", 0);
    fclose(out);
    assert_non_null(strstr(text, "usage: build/01-base [options]"));
    assert_non_null(strstr(text, "--csv"));
    assert_null(strstr(text, "--block"));
    out = fmemopen(text, sizeof text, "w");
    options_print_usage(out, "build/03-block-size", BLOCK_STAGE, "32x32", 0);
    fclose(out);
    assert_non_null(strstr(text, "--block WxH     threads per block (default 32x32)"));
    assert_null(strstr(text, "--rays-per-thread"));
    out = fmemopen(text, sizeof text, "w");
    options_print_usage(out, "build/07e-rays-per-thread", RAYS_STAGE, "32x32", 4);
    fclose(out);
    const char *rays = strstr(text, "--rays-per-thread N");
    assert_non_null(rays);
    assert_non_null(strstr(rays, "1 to 64 (default 4)"));
    assert_null(strstr(text, "--samples"));
    assert_null(strstr(text, "--record"));
    assert_non_null(strstr(text, "(default scenes/benchmark.scene"));

    /* the path-tracing track: its default scene, --samples, and --record for the stages only */
    out = fmemopen(text, sizeof text, "w");
    options_print_usage(out, "build/p01-base", PT_STAGE, "", 0);
    fclose(out);
    assert_non_null(strstr(text, "--scene FILE    scene to render (default scenes/pt-benchmark.scene"));
    assert_non_null(strstr(text, "--samples N     samples per pixel, 1 to 65536 (default: the scene's)"));
    assert_non_null(strstr(text, "--record DIR"));
    assert_non_null(strstr(text, "--record-segment K"));
    assert_non_null(strstr(text, "--csv"));
    assert_null(strstr(text, "--block"));
    assert_null(strstr(text, "--threads"));
    out = fmemopen(text, sizeof text, "w");
    options_print_usage(out, "pt-reference", PT_REFERENCE, NULL, 0);
    fclose(out);
    assert_non_null(strstr(text, "(default scenes/pt-benchmark.scene"));
    assert_non_null(strstr(text, "--samples N"));
    assert_non_null(strstr(text, "--threads N"));
    assert_null(strstr(text, "--record"));
    assert_null(strstr(text, "--csv"));
}

/* Every option a stage's manifest names is one the parser knows (tools/stages check holds the
 * manifests to the same list; this holds the two lists together), and a name it does not know
 * is refused. */
static void manifest_options_are_known(void **state)
{
    (void)state;
    assert_true(options_known("--frames"));
    assert_true(options_known("--tiles"));
    assert_true(options_known("--gpus"));
    assert_false(options_known("--bogus"));
    assert_false(options_known("--scene")); /* every program's: no stage lists it */
    struct command_result *r = run_shell("tools/stages table | cut -f1,5 | tail -n +2");
    int stages = 0, named = 0;
    char *cursor = r->out;
    for (char *line; (line = next_line(&cursor));) {
        ++stages;
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        for (char *word = strtok(tab + 1, " \t\n"); word; word = strtok(NULL, " \t\n")) {
            if (!options_known(word))
                fail_msg("%.*s's manifest names option '%s', which common/runtime/options.c does not know",
                         (int)(tab - line), line, word);
            ++named;
        }
    }
    assert_int_equal(r->exit_code, 0);
    assert_true(stages >= 50);
    assert_true(named >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(every_option_is_read),
        cmocka_unit_test(rays_per_thread_from_1_to_64),
        cmocka_unit_test(gpus_from_1_to_64),
        cmocka_unit_test(rendezvous_and_its_timeout),
        cmocka_unit_test(path_tracing_defaults),
        cmocka_unit_test(samples_and_record_are_read),
        cmocka_unit_test(bad_options_are_named),
        cmocka_unit_test(usage_lists_only_accepted_options),
        cmocka_unit_test(manifest_options_are_known),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
