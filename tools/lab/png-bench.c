/* png-bench: times the PNG encoders on one image, on this machine (issue 25's measurements).
 *
 *   build/png-bench --input IMAGE [--runs N] [--dir DIR] [--threads N]
 *
 * IMAGE is a PPM or PNG (e.g. build/cpu-reference --size 8192x8192 --output /tmp/b.ppm). It
 * prints, as medians of N runs (default 5): the encoder before issue 25 (stb_image_write's, filter
 * none, ISA-L level 2 in one stream on one thread, kept here for comparison) and png_encode()
 * with each row filter on one thread and on every core (--threads N: on N), into memory; then
 * image_write() of a .png and a .ppm into DIR (default /tmp), which is what a stage's "writing
 * FILE" times, and the old encoder's file written the same way. */
#include "image/image.h"
#include "image/png_encode.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>

/* ---- The encoder before issue 25, as common/image/image.c had it ---- */
static unsigned char *old_deflate(unsigned char *data, int length, int *out_length, int quality);
#define STBIW_ZLIB_COMPRESS old_deflate
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

static unsigned char *old_deflate(unsigned char *data, int length, int *out_length, int quality)
{
    (void)quality;
    size_t bound = (size_t)length + (size_t)length / 6553 + 1024;
    unsigned char *out = bound <= INT_MAX ? malloc(bound) : NULL;
    unsigned char *level_buffer = malloc(ISAL_DEF_LVL2_DEFAULT);
    struct isal_zstream stream;
    isal_deflate_stateless_init(&stream);
    stream.level = 2;
    stream.level_buf = level_buffer;
    stream.level_buf_size = ISAL_DEF_LVL2_DEFAULT;
    stream.gzip_flag = IGZIP_ZLIB;
    stream.end_of_stream = 1;
    stream.flush = NO_FLUSH;
    stream.next_in = data;
    stream.avail_in = (uint32_t)length;
    stream.next_out = out;
    stream.avail_out = (uint32_t)bound;
    int status = out && level_buffer ? isal_deflate_stateless(&stream) : -1;
    free(level_buffer);
    if (status != COMP_OK) {
        free(out);
        return NULL;
    }
    *out_length = (int)stream.total_out;
    return out;
}

static unsigned char *old_encode(const struct image *image, size_t *bytes)
{
    int length = 0;
    stbi_write_force_png_filter = 0;
    unsigned char *png = stbi_write_png_to_mem(image->rgb, image->width * 3, image->width,
                                               image->height, 3, &length);
    *bytes = (size_t)length;
    return png;
}

/* ---- Timing ---- */
static double now_ms(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) {
        perror("png-bench: clock_gettime");
        exit(1);
    }
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_RUNS 101

static double median(double *times, int runs)
{
    qsort(times, (size_t)runs, sizeof *times, by_value);
    return runs % 2 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
}

static void fail(const char *what)
{
    fprintf(stderr, "png-bench: error: %s\n", what);
    exit(1);
}

static void time_old_in_memory(const struct image *image, int runs)
{
    double times[MAX_RUNS];
    size_t bytes = 0;
    for (int r = 0; r < runs; ++r) {
        double start = now_ms();
        unsigned char *png = old_encode(image, &bytes);
        times[r] = now_ms() - start;
        if (!png)
            fail("the old encoder failed");
        free(png);
    }
    printf("%-44s %10.1f ms %12zu bytes\n", "old: stb_image_write + ISA-L, 1 thread",
           median(times, runs), bytes);
}

static void time_new_in_memory(const struct image *image, enum png_filter filter, const char *name,
                               int threads, int runs)
{
    struct png_options options = png_default_options();
    options.filter = filter;
    options.threads = threads;
    double times[MAX_RUNS];
    size_t bytes = 0;
    char error[IMAGE_ERROR_BYTES], label[96];
    for (int r = 0; r < runs; ++r) {
        unsigned char *png;
        double start = now_ms();
        if (png_encode(image, &options, &png, &bytes, error, sizeof error))
            fail(error);
        times[r] = now_ms() - start;
        free(png);
    }
    snprintf(label, sizeof label, "new: filter %s, %d thread%s", name,
             png_chunk_count(image, &options), png_chunk_count(image, &options) > 1 ? "s" : "");
    printf("%-44s %10.1f ms %12zu bytes\n", label, median(times, runs), bytes);
}

static long long file_bytes(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file || fseek(file, 0, SEEK_END) != 0)
        fail("cannot measure the file written");
    long long bytes = ftell(file);
    fclose(file);
    return bytes;
}

/* image_write(), or with old set the old encoder's buffer written the way image.c wrote it. */
static void time_file(const struct image *image, const char *dir, const char *extension, int old,
                      int runs)
{
    char path[4096], error[IMAGE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/png-bench-%ld%s", dir, (long)getpid(), extension);
    double times[MAX_RUNS];
    for (int r = 0; r < runs; ++r) {
        double start = now_ms();
        if (old) {
            size_t bytes;
            unsigned char *png = old_encode(image, &bytes);
            FILE *file = png ? fopen(path, "wb") : NULL;
            if (!file || fwrite(png, 1, bytes, file) != bytes || fclose(file) != 0)
                fail("the old encoder's file could not be written");
            free(png);
        } else if (image_write(path, image, error, sizeof error)) {
            fail(error);
        }
        times[r] = now_ms() - start;
    }
    char label[96];
    snprintf(label, sizeof label, "%s file (%s)", old ? "old PNG" : extension + 1,
             old ? "encode, fwrite" : "image_write");
    printf("%-44s %10.1f ms %12lld bytes\n", label, median(times, runs), file_bytes(path));
    if (remove(path) != 0)
        fail("cannot remove the file written");
}

int main(int argc, char **argv)
{
    const char *input = NULL, *dir = "/tmp";
    int runs = 5, threads = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else
            input = NULL, i = argc; /* the usage below */
    }
    if (!input || runs < 1 || runs > MAX_RUNS || threads < 0) {
        fprintf(stderr, "usage: png-bench --input IMAGE [--runs N (1 to %d)] [--dir DIR] "
                        "[--threads N]\n", MAX_RUNS);
        return 2;
    }
    struct image image;
    char error[IMAGE_ERROR_BYTES];
    if (image_read(input, &image, error, sizeof error))
        fail(error);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("%s: %dx%d, %ld cores, medians of %d runs\n", input, image.width, image.height, cores,
           runs);
    time_old_in_memory(&image, runs);
    static const struct {
        enum png_filter filter;
        const char *name;
    } filters[] = {{PNG_FILTER_NONE, "none"},   {PNG_FILTER_SUB, "sub"},
                   {PNG_FILTER_UP, "up"},       {PNG_FILTER_PAETH, "paeth"},
                   {PNG_FILTER_ADAPTIVE, "adaptive"}};
    for (size_t f = 0; f < sizeof filters / sizeof *filters; ++f) {
        time_new_in_memory(&image, filters[f].filter, filters[f].name, 1, runs);
        time_new_in_memory(&image, filters[f].filter, filters[f].name, threads, runs);
    }
    time_file(&image, dir, ".png", 1, runs);
    time_file(&image, dir, ".png", 0, runs);
    time_file(&image, dir, ".ppm", 0, runs);
    image_free(&image);
    return 0;
}
