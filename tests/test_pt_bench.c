/* The kernel benchmark of the path-tracing track (seed 000): a stage's --record DIR writes
 * DIR/record.bin and DIR/scene.scene (common/pathtrace/pt_record.h), build/<stage>-bench DIR
 * replays them. Without a GPU: the record's file round trip and what is refused, and the
 * benchmark's answers to bad arguments. With one: record with p02, replay with p02's benchmark.
 * Run from the repository root. */
#include "test_support.h"

#include <sys/stat.h>

#include "pathtrace/pt_record.h"
#include "pathtrace/pt_scene.h"

#define QUICK_SCENE "scenes/pt-quick.scene"
#define BENCH "p01-base-bench"

/* ---- The benchmark's command line (no GPU needed: all refused before it) ------------------- */

/* Runs build/p01-base-bench with the words given; expects status 2, nothing on stdout and
 * exactly the one line "p01-base-bench: error: <message>" on stderr. */
static void refused(const char *words, const char *message)
{
    struct command_result *r = run_shell("%s/" BENCH " %s", test_build_dir(), words);
    char expected[1024];
    snprintf(expected, sizeof expected, BENCH ": error: %s\n", message);
    if (r->exit_code != 2 || strcmp(r->err, expected) != 0 || r->out[0])
        print_message("# " BENCH " %s: status %d, stderr '%s', stdout '%.200s'\n", words,
                      r->exit_code, r->err, r->out);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, expected);
    assert_string_equal(r->out, "");
}

static void copy_file(const char *from, const char *to)
{
    struct command_result *r = run_shell("cp '%s' '%s'", from, to);
    assert_int_equal(r->exit_code, 0);
}

static void bad_arguments_are_refused_in_one_line(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char words[512], message[512], path[256];

    refused("", "name the folder a run with --record wrote (see --help)");
    refused("--repeats 0 .", "--repeats needs a count from 1 to 10000");
    refused(". --repeats 10001", "--repeats needs a count from 1 to 10000");
    refused(". --repeats", "--repeats needs a count from 1 to 10000");
    refused(". --frobnicate", "unexpected argument '--frobnicate' (see --help)");
    refused(". another", "unexpected argument 'another' (see --help)");

    /* a folder that is not there */
    snprintf(words, sizeof words, "%s/missing --repeats 3", folder);
    snprintf(message, sizeof message,
             "%s/missing is not a folder (write one with 'p01-base --record %s/missing')", folder,
             folder);
    refused(words, message);

    /* a scene but no record.bin */
    snprintf(path, sizeof path, "%s/scene.scene", folder);
    copy_file(QUICK_SCENE, path);
    snprintf(message, sizeof message,
             "%s/record.bin: cannot open record: No such file or directory", folder);
    refused(folder, message);

    /* record.bin damaged: garbage where the header is */
    snprintf(path, sizeof path, "%s/record.bin", folder);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    for (int k = 0; k < 4096; ++k)
        fputc((k * 37 + 11) & 0xff, file);
    assert_int_equal(fclose(file), 0);
    snprintf(message, sizeof message, "%s/record.bin: not a record made by --record", folder);
    refused(folder, message);
    snprintf(words, sizeof words, "%s --repeats 2", folder);
    refused(words, message);

    /* --help: the usage on stdout, status 0 */
    struct command_result *r = run_shell("%s/" BENCH " --help", test_build_dir());
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->out, "DIR [--repeats N]"));
    assert_non_null(strstr(r->out, "p01-base --record DIR"));
    assert_string_equal(r->err, "");
    remove_temporary_folder(folder);
}

/* ---- The record's file ---------------------------------------------------------------------- */

static void fill(struct pt_record *record, int width, int height)
{
    assert_int_equal(pt_record_alloc(record, width, height), 0);
    record->sample = 5;
    record->segment = 3;
    record->max_depth = 8;
    for (int p = 0; p < width * height; ++p) {
        float f = (float)p;
        record->origin[p] = spec_v3(f, -f, 0.5f * f);
        record->direction[p] = spec_v3(1.0f / (f + 1.0f), -0.0f, 3e-38f * f);
        record->done[p] = p % 3 == 0;
        record->colour[p] = spec_v3(f * 0.25f, 64.0f, NAN);
        record->attenuation[p] = spec_v3(0.125f, f, -f);
    }
}

static char *record_path(const char *folder)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/record.bin", folder);
    return path;
}

static void record_round_trip_keeps_every_array(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char dir[128], error[PT_RECORD_ERROR_BYTES];
    snprintf(dir, sizeof dir, "%s/new", folder); /* created by the write */
    struct pt_record written, read;
    const int width = 7, height = 5, count = 35;
    fill(&written, width, height);
    assert_int_equal(pt_record_write(dir, QUICK_SCENE, &written, error, sizeof error), 0);
    assert_int_equal(pt_record_read(dir, &read, error, sizeof error), 0);
    assert_int_equal(read.width, width);
    assert_int_equal(read.height, height);
    assert_int_equal(read.sample, 5);
    assert_int_equal(read.segment, 3);
    assert_int_equal(read.max_depth, 8);
    /* bit for bit, NaN and -0 included */
    assert_memory_equal(read.origin, written.origin, count * sizeof *read.origin);
    assert_memory_equal(read.direction, written.direction, count * sizeof *read.direction);
    assert_memory_equal(read.done, written.done, count * sizeof *read.done);
    assert_memory_equal(read.colour, written.colour, count * sizeof *read.colour);
    assert_memory_equal(read.attenuation, written.attenuation, count * sizeof *read.attenuation);
    pt_record_free(&read);
    assert_null(read.origin);

    /* the scene beside it is a copy of the scene file, and loads */
    char copy[256];
    static char original_text[64 * 1024], copied_text[64 * 1024];
    snprintf(copy, sizeof copy, "%s/scene.scene", dir);
    test_read_file(QUICK_SCENE, original_text, sizeof original_text);
    test_read_file(copy, copied_text, sizeof copied_text);
    assert_true(strlen(original_text) > 100);
    assert_string_equal(copied_text, original_text);
    struct pt_scene scene;
    assert_int_equal(pt_scene_load(copy, &scene, error, sizeof error), 0);
    assert_int_equal(scene.sphere_count, 21);
    pt_scene_free(&scene);

    /* the file's size: magic, 5 ints, 4 float3 arrays and one int array */
    struct stat info;
    assert_int_equal(stat(record_path(dir), &info), 0);
    assert_int_equal(info.st_size, (long long)strlen("pt-record 1\n") + 5 * 4 + count * (4 * 12 + 4));

    /* written again over the same folder: replaced, not appended */
    written.segment = 0;
    assert_int_equal(pt_record_write(dir, QUICK_SCENE, &written, error, sizeof error), 0);
    assert_int_equal(pt_record_read(dir, &read, error, sizeof error), 0);
    assert_int_equal(read.segment, 0);
    pt_record_free(&read);
    pt_record_free(&written);
    remove_temporary_folder(folder);
}

static void damaged_records_are_refused(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char error[PT_RECORD_ERROR_BYTES], expected[512];
    struct pt_record written, read;
    fill(&written, 6, 4);
    assert_int_equal(pt_record_write(folder, QUICK_SCENE, &written, error, sizeof error), 0);
    struct stat info;
    assert_int_equal(stat(record_path(folder), &info), 0);

    /* one byte short: truncated */
    assert_int_equal(truncate(record_path(folder), info.st_size - 1), 0);
    assert_int_equal(pt_record_read(folder, &read, error, sizeof error), -1);
    snprintf(expected, sizeof expected, "%s/record.bin: truncated or too long for its 6x4 paths",
             folder);
    assert_string_equal(error, expected);
    assert_null(read.origin);
    assert_null(read.done);

    /* the header alone */
    assert_int_equal(truncate(record_path(folder), (off_t)strlen("pt-record 1\n") + 20), 0);
    assert_int_equal(pt_record_read(folder, &read, error, sizeof error), -1);
    assert_non_null(strstr(error, "record.bin: truncated"));

    /* shorter than the header: not a record */
    assert_int_equal(truncate(record_path(folder), 15), 0);
    assert_int_equal(pt_record_read(folder, &read, error, sizeof error), -1);
    snprintf(expected, sizeof expected, "%s/record.bin: not a record made by --record", folder);
    assert_string_equal(error, expected);

    /* one byte too many */
    assert_int_equal(pt_record_write(folder, QUICK_SCENE, &written, error, sizeof error), 0);
    FILE *file = fopen(record_path(folder), "ab");
    assert_non_null(file);
    fputc(0, file);
    assert_int_equal(fclose(file), 0);
    assert_int_equal(pt_record_read(folder, &read, error, sizeof error), -1);
    assert_non_null(strstr(error, "record.bin: truncated or too long for its 6x4 paths"));

    /* a header out of range: the segment at max_depth */
    written.segment = 8;
    assert_int_equal(pt_record_write(folder, QUICK_SCENE, &written, error, sizeof error), 0);
    assert_int_equal(pt_record_read(folder, &read, error, sizeof error), -1);
    assert_non_null(strstr(error, "record.bin: its header is out of range (a damaged record?)"));

    /* a folder with no record */
    char empty[256];
    snprintf(empty, sizeof empty, "%s/empty", folder);
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(pt_record_read(empty, &read, error, sizeof error), -1);
    assert_non_null(strstr(error, "empty/record.bin: cannot open record: No such file or directory"));
    pt_record_free(&written);
    remove_temporary_folder(folder);
}

static void record_folder_must_be_creatable(void **state)
{
    (void)state;
    char error[PT_RECORD_ERROR_BYTES];
    char *folder = make_temporary_folder();
    char dir[256];
    /* an existing folder is fine; a new one is created */
    assert_int_equal(pt_record_prepare(folder, error, sizeof error), 0);
    snprintf(dir, sizeof dir, "%s/made", folder);
    assert_int_equal(pt_record_prepare(dir, error, sizeof error), 0);
    struct stat info;
    assert_int_equal(stat(dir, &info), 0);
    assert_true(S_ISDIR(info.st_mode));
    /* a regular file of that name, and a path under a regular file */
    assert_int_equal(pt_record_prepare("tests/bad_inputs.tsv", error, sizeof error), -1);
    assert_string_equal(error,
                        "--record tests/bad_inputs.tsv: cannot create the folder: a file of that "
                        "name exists");
    assert_int_equal(pt_record_prepare("tests/bad_inputs.tsv/x", error, sizeof error), -1);
    assert_string_equal(error,
                        "--record tests/bad_inputs.tsv/x: cannot create the folder: Not a directory");
    remove_temporary_folder(folder);
}

/* ---- On a GPU: record with p02, replay with its benchmark ---------------------------------- */

/* The number in out after the first occurrence of before, or -1. */
static double number_after(const char *out, const char *before)
{
    const char *at = strstr(out, before);
    return at ? strtod(at + strlen(before), NULL) : -1;
}

/* The number of paths of frame 0 still going before segment `segment`, by the CPU reference's
 * arithmetic: those that traced more than `segment` rays. */
static int paths_alive_before(const char *scene_path, int segment)
{
    struct pt_scene scene;
    char error[512];
    assert_int_equal(pt_scene_load(scene_path, &scene, error, sizeof error), 0);
    struct pt_world world = pt_scene_world(&scene, scene.width, scene.height);
    int alive = 0;
    for (int j = 0; j < scene.height; ++j)
        for (int i = 0; i < scene.width; ++i) {
            int rays;
            pt_trace_sample(&world, i, j, 0, &rays);
            alive += rays > segment;
        }
    pt_scene_free(&scene);
    return alive;
}

static void record_and_replay_on_the_gpu(void **state)
{
    (void)state;
    SKIP_WITHOUT_GPU();
    char *folder = make_temporary_folder();
    const int segments[] = {-1, 0, 3}; /* -1: the default, segment 1 */
    for (int s = 0; s < 3; ++s) {
        char dir[256], option[64] = "";
        snprintf(dir, sizeof dir, "%s/rec%d", folder, s);
        if (segments[s] >= 0)
            snprintf(option, sizeof option, "--record-segment %d", segments[s]);
        int segment = segments[s] >= 0 ? segments[s] : 1;
        struct command_result *r =
            run_shell("%s/p02-no-device-malloc --scene " QUICK_SCENE " --record %s %s",
                      test_build_dir(), dir, option);
        if (r->exit_code)
            print_message("# %s", r->err);
        assert_int_equal(r->exit_code, 0);

        struct pt_record record;
        char error[PT_RECORD_ERROR_BYTES];
        int read = pt_record_read(dir, &record, error, sizeof error);
        if (read)
            fail_msg("%s", error);
        assert_int_equal(record.width, 128);
        assert_int_equal(record.height, 128);
        assert_int_equal(record.sample, 0);
        assert_int_equal(record.segment, segment);
        assert_int_equal(record.max_depth, 8);
        int active = 0;
        for (int p = 0; p < 128 * 128; ++p)
            active += record.done[p] == 0;
        pt_record_free(&record);
        int expected = paths_alive_before(QUICK_SCENE, segment);
        print_message("# segment %d: %d paths active in the record, %d by the CPU reference\n",
                      segment, active, expected);
        assert_int_equal(active, expected);
        if (segment == 0)
            assert_int_equal(active, 128 * 128);
        else
            assert_true(active > 0 && active < 128 * 128);

        r = run_shell("%s/p02-no-device-malloc-bench %s --repeats 3", test_build_dir(), dir);
        if (r->exit_code)
            print_message("# %s", r->err);
        assert_int_equal(r->exit_code, 0);
        print_message("%s", r->out);
        char frame[128];
        snprintf(frame, sizeof frame, "frame 0 before segment %d, 128x128 paths, %d active\n",
                 segment, active);
        assert_non_null(strstr(r->out, frame));
        double intersect = number_after(r->out, "intersect  median");
        double scatter = number_after(r->out, "scatter    median");
        assert_true(intersect > 0);
        assert_true(scatter > 0);
        const char *min = strstr(strstr(r->out, "intersect"), " min ");
        assert_non_null(min);
        assert_true(strtod(min + 5, NULL) > 0 && strtod(min + 5, NULL) <= intersect);
    }
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_are_refused_in_one_line),
        cmocka_unit_test(record_round_trip_keeps_every_array),
        cmocka_unit_test(damaged_records_are_refused),
        cmocka_unit_test(record_folder_must_be_creatable),
        cmocka_unit_test(record_and_replay_on_the_gpu),
    };
    return cmocka_run_group_tests_name("path-tracing kernel benchmark", tests, NULL, NULL);
}
