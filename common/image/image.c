#include "image/image.h"

#include "runtime/files.h"
#include "image/png_encode.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

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

/* Writes all of data, however many write() calls that takes (a write may be cut short by a
 * signal or a pipe's capacity); -1 with errno as the failing call left it. */
static int write_all(int fd, const unsigned char *data, size_t bytes)
{
    while (bytes > 0) {
        ssize_t written = write(fd, data, bytes);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            if (written == 0)
                errno = EIO;
            return -1;
        }
        data += written;
        bytes -= (size_t)written;
    }
    return 0;
}

/* Writes head (head_bytes, may be 0) then body to path through a temporary file beside it,
 * renamed into place once closed: no partial file is left, and an earlier file of that name is
 * replaced only by a whole one. 0, or -1 with a one-line message. */
static int write_whole_file(const char *path, const unsigned char *head, size_t head_bytes,
                            const unsigned char *body, size_t body_bytes, char *error,
                            size_t error_size)
{
    char temporary[4096];
    if (temporary_beside(path, temporary, sizeof temporary)) {
        snprintf(error, error_size, "%.200s...: output path too long", path);
        return -1;
    }
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(error, error_size, "%s: cannot write the output: %s", path, strerror(errno));
        return -1;
    }
    /* Past the file-size limit (ulimit -f) the kernel sends SIGXFSZ, whose default ends the
     * process and leaves the temporary file behind; ignored, the write fails with EFBIG instead
     * and the error path below cleans up. */
    void (*previous_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    int failed = write_all(fd, head, head_bytes) || write_all(fd, body, body_bytes) ? -1 : 0;
    int saved = failed ? errno : 0;
    /* close() can be where a full disk or a network file system reports the failure. */
    if (close(fd) != 0 && !failed) {
        failed = -1;
        saved = errno;
    }
    if (previous_xfsz != SIG_ERR)
        signal(SIGXFSZ, previous_xfsz);
    if (!failed && rename(temporary, path) != 0) {
        failed = -1;
        saved = errno;
    }
    if (failed) {
        /* Unchecked on purpose: the write's failure is the one to report, and a temporary file
         * that cannot be removed either is named *.partial-PID beside the output. */
        remove(temporary);
        snprintf(error, error_size, "%s: writing the image failed: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

/* A PNG is encoded into memory first (png_encode.c, on every core), so that no file is created
 * when that fails and the file is written in one write(); a PPM is its header and the pixels. */
int image_write(const char *path, const struct image *image, char *error, size_t error_size)
{
    if (strcmp(extension_of(path), ".ppm") == 0) {
        char header[64];
        int length =
            snprintf(header, sizeof header, "P6\n%d %d\n255\n", image->width, image->height);
        return write_whole_file(path, (const unsigned char *)header, (size_t)length, image->rgb,
                                (size_t)image->width * (size_t)image->height * 3, error,
                                error_size);
    }
    unsigned char *png = NULL;
    size_t png_bytes = 0;
    char reason[IMAGE_ERROR_BYTES];
    struct png_options options = png_default_options();
    if (png_encode(image, &options, &png, &png_bytes, reason, sizeof reason)) {
        snprintf(error, error_size, "%s: writing the image failed: %s", path, reason);
        return -1;
    }
    int status = write_whole_file(path, NULL, 0, png, png_bytes, error, error_size);
    free(png);
    return status;
}

/* image_write()'s way with a file already encoded in memory (stage 21a's PNG, made while the
 * frame arrived): the same temporary file, one write, close and rename, and the same errors. */
int image_write_encoded(const char *path, const unsigned char *data, size_t bytes, char *error,
                        size_t error_size)
{
    return write_whole_file(path, NULL, 0, data, bytes, error, error_size);
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

/* A PPM's header after its magic (width, height, maxval), held to what this course writes, and
 * the image allocated for it; kind names the format in the error ("binary PPM ... (P6"). */
static int read_ppm_header(FILE *file, const char *path, const char *kind, struct image *image,
                           char *error, size_t error_size)
{
    long width = ppm_header_number(file), height = ppm_header_number(file);
    long maxval = ppm_header_number(file);
    if (width < 1 || height < 1 || width > 32768 || height > 32768 || maxval != 255) {
        snprintf(error, error_size,
                 "%s: cannot read image: not a %s, width and height 1 to 32768, maxval 255)", path,
                 kind);
        return -1;
    }
    if (image_alloc(image, (int)width, (int)height)) {
        snprintf(error, error_size, "%s: cannot read image: out of memory for %ldx%ld pixels", path,
                 width, height);
        return -1;
    }
    return 0;
}

/* A binary PPM (P6, maxval 255), read strictly: stb_image would pad a truncated one with black
 * pixels and compare it as if it were whole. */
static int read_ppm(FILE *file, const char *path, struct image *image, char *error,
                    size_t error_size)
{
    if (read_ppm_header(file, path, "binary PPM this course writes (P6", image, error, error_size))
        return -1;
    size_t bytes = (size_t)image->width * (size_t)image->height * 3;
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

/* The next number of a text PPM's pixels after blanks: 0 to 255, ended by a blank or the end of
 * the file; -1 when only blanks are left, -2 when what follows the blanks is no such number. */
static int text_ppm_value(FILE *file)
{
    int c = getc_unlocked(file);
    while (c == ' ' || c == '\t' || c == '\r' || c == '\n')
        c = getc_unlocked(file);
    if (c == EOF)
        return -1;
    int value = -1, digits = 0;
    while (c >= '0' && c <= '9' && digits < 4) {
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        digits++;
        c = getc_unlocked(file);
    }
    if (value < 0 || value > 255 || digits > 3 ||
        !(c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == EOF))
        return -2;
    return value;
}

/* A text PPM (P3, maxval 255: side stage 02a writes one, as the study did), read as strictly as
 * the binary one: exactly width x height x 3 numbers from 0 to 255, then only blanks. */
static int read_text_ppm(FILE *file, const char *path, struct image *image, char *error,
                         size_t error_size)
{
    if (read_ppm_header(file, path, "text PPM this course writes (P3", image, error, error_size))
        return -1;
    size_t values = (size_t)image->width * (size_t)image->height * 3, got = 0;
    int value = 0;
    while (got < values && (value = text_ppm_value(file)) >= 0)
        image->rgb[got++] = (unsigned char)value;
    if (got == values)
        value = text_ppm_value(file);
    if (got != values || value != -1) {
        if (value == -2)
            snprintf(error, error_size,
                     "%s: cannot read image: value %zu of the pixels is not a number from 0 to 255",
                     path, got + 1);
        else if (got != values)
            snprintf(error, error_size,
                     "%s: cannot read image: truncated, %zu of the %zu values of pixels its header "
                     "announces",
                     path, got, values);
        else
            snprintf(error, error_size,
                     "%s: cannot read image: %zu values of pixels, then more data than its header "
                     "announces",
                     path, values);
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
    } else if (magic[0] == 'P' && magic[1] == '3') {
        status = read_text_ppm(file, path, image, error, error_size);
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
