#include "pathtrace/pt_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/files.h"
#include "raytrace/scene.h"

#define MAGIC "pt-record 1\n"
#define MAX_PATH_BYTES 4096
#define MAX_PATHS (32768LL * 32768LL)

int pt_record_alloc(struct pt_record *record, int width, int height)
{
    size_t count = (size_t)width * (size_t)height;
    record->width = width;
    record->height = height;
    record->origin = malloc(count * sizeof *record->origin);
    record->direction = malloc(count * sizeof *record->direction);
    record->done = malloc(count * sizeof *record->done);
    record->colour = malloc(count * sizeof *record->colour);
    record->attenuation = malloc(count * sizeof *record->attenuation);
    if (!record->origin || !record->direction || !record->done || !record->colour ||
        !record->attenuation) {
        pt_record_free(record);
        return -1;
    }
    return 0;
}

void pt_record_free(struct pt_record *record)
{
    free(record->origin);
    free(record->direction);
    free(record->done);
    free(record->colour);
    free(record->attenuation);
    record->origin = record->direction = record->colour = record->attenuation = NULL;
    record->done = NULL;
}

/* The arrays in their order in record.bin, with their element sizes. */
static void arrays_of(const struct pt_record *record, void *arrays[5], size_t sizes[5])
{
    arrays[0] = record->origin;
    arrays[1] = record->direction;
    arrays[2] = record->done;
    arrays[3] = record->colour;
    arrays[4] = record->attenuation;
    for (int k = 0; k < 5; ++k)
        sizes[k] = k == 2 ? sizeof(int) : sizeof(struct spec_vec3);
}

static int copy_scene(const char *scene_path, const char *to, char *error, size_t error_size)
{
    FILE *in = open_regular_file(scene_path, "scene file", SCENE_MAX_FILE_BYTES, error, error_size);
    if (!in)
        return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        snprintf(error, error_size, "%s: cannot write: %s", to, strerror(errno));
        return -1;
    }
    char buffer[65536];
    size_t n;
    int failed = 0;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
        if (fwrite(buffer, 1, n, out) != n)
            failed = 1;
    failed |= ferror(in);
    fclose(in);
    if (fclose(out) || failed) {
        snprintf(error, error_size, "%s: cannot write: %s", to, strerror(errno));
        return -1;
    }
    return 0;
}

int pt_record_prepare(const char *dir, char *error, size_t error_size)
{
    struct stat info;
    if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &info) == 0 && S_ISDIR(info.st_mode))) {
        snprintf(error, error_size, "--record %s: cannot create the folder: %s", dir,
                 errno == EEXIST ? "a file of that name exists" : strerror(errno));
        return -1;
    }
    return 0;
}

int pt_record_write(const char *dir, const char *scene_path, const struct pt_record *record,
                    char *error, size_t error_size)
{
    if (pt_record_prepare(dir, error, error_size))
        return -1;
    char path[MAX_PATH_BYTES];
    snprintf(path, sizeof path, "%s/scene.scene", dir);
    if (copy_scene(scene_path, path, error, error_size))
        return -1;
    snprintf(path, sizeof path, "%s/record.bin", dir);
    FILE *out = fopen(path, "wb");
    if (!out) {
        snprintf(error, error_size, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    int header[5] = {record->width, record->height, record->sample, record->segment,
                     record->max_depth};
    size_t count = (size_t)record->width * (size_t)record->height;
    int failed = fwrite(MAGIC, 1, strlen(MAGIC), out) != strlen(MAGIC) ||
                 fwrite(header, sizeof header, 1, out) != 1;
    void *arrays[5];
    size_t sizes[5];
    arrays_of(record, arrays, sizes);
    for (int k = 0; k < 5 && !failed; ++k)
        failed = fwrite(arrays[k], sizes[k], count, out) != count;
    if (fclose(out) || failed) {
        snprintf(error, error_size, "%s: cannot write: %s", path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}

int pt_record_read(const char *dir, struct pt_record *record, char *error, size_t error_size)
{
    char path[MAX_PATH_BYTES];
    snprintf(path, sizeof path, "%s/record.bin", dir);
    memset(record, 0, sizeof *record);
    FILE *in = open_regular_file(path, "record", (long long)1 << 40, error, error_size);
    if (!in)
        return -1;
    char magic[sizeof MAGIC];
    int header[5];
    if (fread(magic, 1, strlen(MAGIC), in) != strlen(MAGIC) ||
        memcmp(magic, MAGIC, strlen(MAGIC)) != 0 || fread(header, sizeof header, 1, in) != 1) {
        fclose(in);
        snprintf(error, error_size, "%s: not a record made by --record", path);
        return -1;
    }
    if (header[0] < 1 || header[1] < 1 || (long long)header[0] * header[1] > MAX_PATHS ||
        header[4] < 1 || header[3] < 0 || header[3] >= header[4] || header[2] < 0) {
        fclose(in);
        snprintf(error, error_size, "%s: its header is out of range (a damaged record?)", path);
        return -1;
    }
    if (pt_record_alloc(record, header[0], header[1])) {
        fclose(in);
        snprintf(error, error_size, "%s: out of host memory for %dx%d paths", path, header[0],
                 header[1]);
        return -1;
    }
    record->sample = header[2];
    record->segment = header[3];
    record->max_depth = header[4];
    size_t count = (size_t)record->width * (size_t)record->height;
    void *arrays[5];
    size_t sizes[5];
    arrays_of(record, arrays, sizes);
    int failed = 0;
    for (int k = 0; k < 5 && !failed; ++k)
        failed = fread(arrays[k], sizes[k], count, in) != count;
    char extra;
    failed |= fread(&extra, 1, 1, in) == 1;
    fclose(in);
    if (failed) {
        pt_record_free(record);
        snprintf(error, error_size, "%s: truncated or too long for its %dx%d paths", path,
                 header[0], header[1]);
        return -1;
    }
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pt_bench_median_min(double *us, int n, double out[2])
{
    qsort(us, (size_t)n, sizeof *us, compare_doubles);
    out[0] = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
    out[1] = us[0];
}
