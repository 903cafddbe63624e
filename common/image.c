#include "image.h"

#include "files.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>
#include <stb_image.h>

/* PNG files: stb_image_write's encoder, compiled here rather than taken from libstb, so that its
 * deflate is ISA-L's (STBIW_ZLIB_COMPRESS) and its functions are private to this file
 * (STB_IMAGE_WRITE_STATIC: no clash with libstb's copies). With filter 0 ("none") and ISA-L's
 * level 2, the 8192x8192 benchmark image takes about 0.3 s instead of stb's 4.7 s (libdeflate's
 * level 1: 0.55 s), at 9.7 MB instead of stb's 7.6 (README, "Two commands": the table of PNG
 * and PPM write times). */
#define PNG_DEFLATE_LEVEL 2
#define PNG_FILTER 0
static unsigned char *png_deflate(unsigned char *data, int length, int *out_length, int quality);
#define STBIW_ZLIB_COMPRESS png_deflate
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

/* What stb_image_write expects of STBIW_ZLIB_COMPRESS: a zlib stream in a buffer it frees with
 * free(), its length in *out_length; NULL when it cannot (stb then reports failure). */
static unsigned char *png_deflate(unsigned char *data, int length, int *out_length, int quality)
{
    (void)quality; /* stb's own level (stbi_write_png_compression_level); ours is fixed */
    /* At worst stored blocks (5 bytes per 64 KiB block), the zlib header and trailer: room for
     * twice as many block headers, since ISA-L fails rather than overflow (STATELESS_OVERFLOW). */
    size_t bound = (size_t)length + (size_t)length / 6553 + 1024;
    unsigned char *out = bound <= INT_MAX ? malloc(bound) : NULL;
    unsigned char *level_buffer = malloc(ISAL_DEF_LVL2_DEFAULT);
    struct isal_zstream stream;
    isal_deflate_stateless_init(&stream);
    stream.level = PNG_DEFLATE_LEVEL;
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

int image_alloc(struct image *image, int width, int height)
{
    image->width = width;
    image->height = height;
    image->rgb = malloc((size_t)width * (size_t)height * 3);
    return image->rgb ? 0 : -1;
}

void image_free(struct image *image)
{
    free(image->rgb);
    image->rgb = NULL;
}

unsigned char image_channel_from_float(float value)
{
    if (!(value > 0.0f))
        return 0;
    if (value >= 255.0f)
        return 255;
    return (unsigned char)value;
}

void image_from_float_rgb(struct image *image, const float *rgb)
{
    size_t count = (size_t)image->width * (size_t)image->height * 3;
    for (size_t i = 0; i < count; ++i)
        image->rgb[i] = image_channel_from_float(rgb[i]);
}

static const char *extension_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

static int temporary_beside(const char *path, char *temporary, size_t size)
{
    int n = snprintf(temporary, size, "%s.partial-%ld", path, (long)getpid());
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int image_check_output_path(const char *path, char *error, size_t error_size)
{
    const char *extension = extension_of(path);
    if (strcmp(extension, ".png") != 0 && strcmp(extension, ".ppm") != 0) {
        snprintf(error, error_size, "%s: output must end in .png or .ppm", path);
        return -1;
    }
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        snprintf(error, error_size, "%s: output is a directory", path);
        return -1;
    }
    char temporary[4096];
    if (temporary_beside(path, temporary, sizeof temporary)) {
        snprintf(error, error_size, "%.200s...: output path too long", path);
        return -1;
    }
    FILE *probe = fopen(temporary, "wb");
    if (!probe) {
        snprintf(error, error_size, "%s: cannot write the output there: %s", path, strerror(errno));
        return -1;
    }
    fclose(probe);
    remove(temporary);
    return 0;
}

static int write_ppm(FILE *file, const struct image *image)
{
    size_t bytes = (size_t)image->width * (size_t)image->height * 3;
    return fprintf(file, "P6\n%d %d\n255\n", image->width, image->height) > 0 &&
                   fwrite(image->rgb, 1, bytes, file) == bytes
               ? 0
               : -1;
}

struct png_sink {
    FILE *file;
    int failed;
};

static void write_to_sink(void *context, void *data, int size)
{
    struct png_sink *sink = context;
    if (fwrite(data, 1, (size_t)size, sink->file) != (size_t)size)
        sink->failed = 1;
}

int image_write(const char *path, const struct image *image, char *error, size_t error_size)
{
    char temporary[4096];
    if (temporary_beside(path, temporary, sizeof temporary)) {
        snprintf(error, error_size, "%.200s...: output path too long", path);
        return -1;
    }
    FILE *file = fopen(temporary, "wb");
    if (!file) {
        snprintf(error, error_size, "%s: cannot write the output: %s", path, strerror(errno));
        return -1;
    }
    /* Past the file-size limit (ulimit -f) the kernel sends SIGXFSZ, whose default ends the
     * process and leaves the temporary file behind; ignored, the write fails with EFBIG instead
     * and the error path below cleans up. */
    void (*previous_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    int failed;
    errno = 0;
    if (strcmp(extension_of(path), ".ppm") == 0) {
        failed = write_ppm(file, image);
    } else {
        struct png_sink sink = {file, 0};
        stbi_write_force_png_filter = PNG_FILTER;
        failed = !stbi_write_png_to_func(write_to_sink, &sink, image->width, image->height, 3,
                                         image->rgb, image->width * 3) ||
                 sink.failed;
    }
    failed |= ferror(file);
    failed |= fclose(file) != 0;
    if (previous_xfsz != SIG_ERR)
        signal(SIGXFSZ, previous_xfsz);
    if (failed || rename(temporary, path) != 0) {
        int saved = errno;
        remove(temporary);
        snprintf(error, error_size, "%s: writing the image failed: %s", path,
                 saved ? strerror(saved) : "encoder error");
        return -1;
    }
    return 0;
}

/* The next number of a binary PPM header, after blanks and # comments; -1 if there is none. */
static long ppm_header_number(FILE *file)
{
    int c = fgetc(file);
    while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#') {
        if (c == '#')
            while (c != '\n' && c != EOF)
                c = fgetc(file);
        c = fgetc(file);
    }
    long value = -1;
    while (c >= '0' && c <= '9' && value < 1000000) {
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        c = fgetc(file);
    }
    /* One blank ends the number; the pixels follow the last one at once. */
    if (value >= 0 && !(c == ' ' || c == '\t' || c == '\r' || c == '\n'))
        return -1;
    return value;
}

/* A binary PPM (P6, maxval 255), read strictly: stb_image would pad a truncated one with black
 * pixels and compare it as if it were whole. */
static int read_ppm(FILE *file, const char *path, struct image *image, char *error,
                    size_t error_size)
{
    long width = ppm_header_number(file), height = ppm_header_number(file);
    long maxval = ppm_header_number(file);
    if (width < 1 || height < 1 || width > 32768 || height > 32768 || maxval != 255) {
        snprintf(error, error_size,
                 "%s: cannot read image: not a binary PPM this course writes (P6, width and height "
                 "1 to 32768, maxval 255)",
                 path);
        return -1;
    }
    if (image_alloc(image, (int)width, (int)height)) {
        snprintf(error, error_size, "%s: cannot read image: out of memory for %ldx%ld pixels", path,
                 width, height);
        return -1;
    }
    size_t bytes = (size_t)width * (size_t)height * 3;
    size_t got = fread(image->rgb, 1, bytes, file);
    if (got != bytes || fgetc(file) != EOF) {
        snprintf(error, error_size,
                 got != bytes ? "%s: cannot read image: truncated, %zu of the %zu bytes of pixels its "
                                "header announces"
                              : "%s: cannot read image: %zu bytes of pixels, then more data than its "
                                "header announces (%zu)",
                 path, got, bytes);
        image_free(image);
        return -1;
    }
    return 0;
}

int image_read(const char *path, struct image *image, char *error, size_t error_size)
{
    memset(image, 0, sizeof *image);
    FILE *file = open_regular_file(path, "image", IMAGE_MAX_FILE_BYTES, error, error_size);
    if (!file)
        return -1;
    unsigned char magic[2] = {0, 0};
    int status = 0;
    if (fread(magic, 1, 2, file) == 2 && magic[0] == 'P' && magic[1] == '6') {
        status = read_ppm(file, path, image, error, error_size);
    } else {
        rewind(file);
        int channels;
        image->rgb = stbi_load_from_file(file, &image->width, &image->height, &channels, 3);
        if (!image->rgb) {
            snprintf(error, error_size, "%s: cannot read image: %s (a PNG or a binary PPM is expected)",
                     path, stbi_failure_reason());
            status = -1;
        }
    }
    fclose(file);
    return status;
}

int image_compare(const struct image *a, const struct image *b, struct image_difference *diff)
{
    memset(diff, 0, sizeof *diff);
    if (a->width != b->width || a->height != b->height)
        return -1;
    diff->total_pixels = (long long)a->width * a->height;
    for (long long p = 0; p < diff->total_pixels; ++p) {
        int pixel_differs = 0;
        for (int c = 0; c < 3; ++c) {
            int delta = abs((int)a->rgb[p * 3 + c] - (int)b->rgb[p * 3 + c]);
            if (delta) {
                pixel_differs = 1;
                if (delta > diff->largest_channel_difference)
                    diff->largest_channel_difference = delta;
            }
        }
        diff->differing_pixels += pixel_differs;
    }
    return 0;
}
