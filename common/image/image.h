/* 8-bit RGB images: conversion from the float frame buffer, PNG/PPM files, comparison. */
#ifndef IMAGE_H
#define IMAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IMAGE_ERROR_BYTES 512

struct image {
    int width, height;
    unsigned char *rgb; /* width * height * 3 bytes, rows from the top */
};

struct image_difference {
    long long differing_pixels;
    long long total_pixels;
    int largest_channel_difference;
};

/* Allocates; 0 or -1 (out of memory). */
int image_alloc(struct image *image, int width, int height);
void image_free(struct image *image);

/* SPEC.md's output rule: truncation toward zero (clamped to 0..255, NaN to 0). */
unsigned char image_channel_from_float(float value);
void image_from_float_rgb(struct image *image, const float *rgb);

/* 0 when the path ends in .png or .ppm and a file can be created there (the check creates and
 * removes a temporary file beside it), else -1 with a one-line message. */
int image_check_output_path(const char *path, char *error, size_t error_size);

/* Writes through a temporary file renamed into place: no partial file is ever left behind, and
 * a file of that name is replaced only by a whole image. A name ending in .ppm gets a binary PPM;
 * any other a PNG, encoded in memory on every core (png_encode.h), then written in one write(). */
int image_write(const char *path, const struct image *image, char *error, size_t error_size);

/* Writes bytes of data, an image file already encoded (a PNG made by png_stream_finish()), to
 * path as image_write() writes its own: through a temporary file renamed into place, in one
 * write(), with the same messages. 0, or -1 with a one-line message. */
int image_write_encoded(const char *path, const unsigned char *data, size_t bytes, char *error,
                        size_t error_size);

/* Images read are regular files of at most this size (a 32768x32768 PPM is 3.2 GB). */
#define IMAGE_MAX_FILE_BYTES (4LL << 30)

/* Reads a PNG (through stb_image), a binary PPM or a text PPM (P3, as side stage 02a writes it),
 * strictly: a truncated PPM is refused; a path that is not a regular file is refused before
 * anything is read. */
int image_read(const char *path, struct image *image, char *error, size_t error_size);

/* -1 when the sizes differ. */
int image_compare(const struct image *a, const struct image *b, struct image_difference *diff);

#ifdef __cplusplus
}
#endif

#endif
