/* The kernel benchmark of a path-tracing stage (seed 000's tool): build/<stage>-bench DIR replays
 * the state a run with --record DIR saved through the stage's own kernels and times each alone,
 * so a kernel can be worked on without the whole renderer around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#define ERROR_BYTES 1024
#define MAX_PATH_BYTES 4096
#define DEFAULT_REPEATS 20
#define MAX_REPEATS 10000

static int usage(FILE *out, const char *program)
{
    fprintf(out,
            "usage: %s DIR [--repeats N]\n\n"
            "Replays DIR (written by '%s --record DIR') through this stage's kernels:\n"
            "the intersection and the scattering of one segment, each timed alone with CUDA\n"
            "events, N times (default %d, 1 to %d); prints the median and the minimum.\n",
            program, stage_manifest.name, DEFAULT_REPEATS, MAX_REPEATS);
    return out == stdout ? 0 : 2;
}

static int fail(const char *message)
{
    fprintf(stderr, "%s-bench: error: %s\n", stage_manifest.name, message);
    return 2;
}

int main(int argc, char **argv)
{
    cuda_check_program = stage_manifest.name;
    const char *dir = NULL;
    int repeats = DEFAULT_REPEATS;
    char error[ERROR_BYTES];
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout, argv[0]);
        if (strcmp(argv[i], "--repeats") == 0) {
            char *end;
            long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || end == argv[i + 1] || n < 1 || n > MAX_REPEATS) {
                snprintf(error, sizeof error, "--repeats needs a count from 1 to %d", MAX_REPEATS);
                return fail(error);
            }
            repeats = (int)n;
            ++i;
        } else if (argv[i][0] == '-' || dir) {
            snprintf(error, sizeof error, "unexpected argument '%.60s' (see --help)", argv[i]);
            return fail(error);
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return fail("name the folder a run with --record wrote (see --help)");

    struct stat info;
    if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode)) {
        snprintf(error, sizeof error, "%.200s is not a folder (write one with '%s --record %.200s')",
                 dir, stage_manifest.name, dir);
        return fail(error);
    }
    char scene_path[MAX_PATH_BYTES];
    snprintf(scene_path, sizeof scene_path, "%s/scene.scene", dir);
    struct pt_scene scene;
    if (pt_scene_load(scene_path, &scene, error, sizeof error))
        return fail(error);
    struct pt_record record;
    if (pt_record_read(dir, &record, error, sizeof error)) {
        pt_scene_free(&scene);
        return fail(error);
    }
    int status = 2;
    struct report report;
    report_init(&report, stage_manifest.name);
    if (pt_stage_holds_scene(scene_path, &scene, error, sizeof error)) {
        fail(error);
    } else if (gpu_open(0, &report, error, sizeof error) != GPU_OK) {
        fail(error);
    } else {
        struct pt_bench_times times;
        stage_bench(&record, &scene, repeats, &times);
        printf("%s kernel benchmark: %s, frame %d before segment %d, %dx%d paths, %d active\n",
               stage_manifest.name, dir, record.sample, record.segment, record.width, record.height,
               times.active);
        printf("  GPU: %s\n", report.gpu_summary);
        printf("  %-10s median %10.1f us  min %10.1f us  %8.1f M rays/s (median)\n", "intersect",
               times.intersect_us[0], times.intersect_us[1],
               times.active / times.intersect_us[0]);
        printf("  %-10s median %10.1f us  min %10.1f us  %8.1f M rays/s (median)\n", "scatter",
               times.scatter_us[0], times.scatter_us[1], times.active / times.scatter_us[0]);
        status = 0;
    }
    pt_record_free(&record);
    pt_scene_free(&scene);
    return status;
}
