/* PNG checks written from the specifications, not from the encoder (common/png_*.c): CRC-32 a
 * bit at a time, Adler-32 by its definition, a chunk walker and PNG's reconstruction of all five
 * filter types, check_png() built on them, and benchmark_like() images. Shared by tests/test_png.c
 * and tests/test_png_stream.c; include after test_support.h (cmocka). */
#ifndef PNG_CHECKS_H
#define PNG_CHECKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

#include "image/image.h"
#include "image/png_filter.h"

static uint32_t naive_adler32(uint32_t adler, const unsigned char *data, size_t bytes)
{
    uint32_t s1 = adler & 0xffff, s2 = adler >> 16;
    for (size_t i = 0; i < bytes; ++i) {
        s1 = (s1 + data[i]) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    return s2 << 16 | s1;
}

/* CRC-32 of PNG (ISO 3309), a bit at a time. */
static uint32_t naive_crc32(const unsigned char *data, size_t bytes)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < bytes; ++i) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walks the chunks: signature, IHDR first (RGB, 8 bits, no interlacing), IDATs in one run, each
 * at most idat_limit bytes, IEND last and nothing after it, every CRC right. Returns the IDATs'
 * data put together (malloc'd). */
static unsigned char *idat_stream(const unsigned char *png, size_t bytes, int width, int height,
                                  size_t idat_limit, size_t *stream_bytes)
{
    assert_true(bytes >= 8 + 25 + 12);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    unsigned char *stream = malloc(bytes);
    assert_non_null(stream);
    size_t at = 8, collected = 0;
    int chunk = 0, idats = 0, idats_ended = 0, ended = 0;
    while (at < bytes) {
        assert_false(ended);
        assert_true(at + 12 <= bytes);
        size_t length = get_u32(png + at);
        assert_true(at + 12 + length <= bytes);
        const unsigned char *type = png + at + 4, *data = png + at + 8;
        if (naive_crc32(type, length + 4) != get_u32(data + length))
            fail_msg("chunk %d (%.4s) at byte %zu: wrong CRC", chunk, (const char *)type, at);
        if (chunk == 0) {
            assert_memory_equal(type, "IHDR", 4);
            assert_int_equal(length, 13);
            assert_int_equal(get_u32(data), width);
            assert_int_equal(get_u32(data + 4), height);
            assert_memory_equal(data + 8, "\x08\x02\x00\x00\x00", 5);
        } else if (!memcmp(type, "IDAT", 4)) {
            assert_false(idats_ended);
            assert_true(length >= 1 && length <= idat_limit);
            memcpy(stream + collected, data, length);
            collected += length;
            idats++;
        } else {
            assert_memory_equal(type, "IEND", 4);
            assert_int_equal(length, 0);
            ended = 1;
        }
        idats_ended = idats > 0 && memcmp(type, "IDAT", 4) != 0;
        at += 12 + length;
        chunk++;
    }
    assert_true(ended && idats > 0);
    *stream_bytes = collected;
    return stream;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* PNG's reconstruction (specification, 9.2), all five filter types, into out. */
static void unfilter(const unsigned char *filtered, int width, int height, unsigned char *out)
{
    size_t row_bytes = (size_t)width * 3;
    for (int y = 0; y < height; ++y) {
        const unsigned char *in = filtered + (size_t)y * (row_bytes + 1);
        unsigned char *row = out + (size_t)y * row_bytes;
        const unsigned char *up = y ? row - row_bytes : NULL;
        assert_in_range(in[0], 0, 4);
        for (size_t i = 0; i < row_bytes; ++i) {
            int a = i >= 3 ? row[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
            int predicted = in[0] == 0 ? 0 : in[0] == 1 ? a : in[0] == 2 ? b
                          : in[0] == 3 ? (a + b) / 2 : paeth(a, b, c);
            row[i] = (unsigned char)(in[1 + i] + predicted);
        }
    }
}

static void assert_same_pixels(const unsigned char *got, const struct image *image, const char *who)
{
    size_t bytes = (size_t)image->width * image->height * 3;
    if (memcmp(got, image->rgb, bytes) != 0) {
        size_t i = 0;
        while (got[i] == image->rgb[i])
            i++;
        fail_msg("%dx%d: %s decodes byte %zu (pixel %d, %d) as %d, not %d", image->width,
                 image->height, who, i, (int)(i / 3 % image->width), (int)(i / 3 / image->width),
                 got[i], image->rgb[i]);
    }
}

/* Everything about a PNG in memory, with decoders that share no code with the encoder: the
 * chunks (IDATs of at most idat_limit bytes), the zlib header, the Adler-32, each row's filter
 * type (every row filter's, PNG_FILTER_ADAPTIVE: any), and the pixels by the test's own
 * unfiltering and by stb_image. */
static void check_png(const unsigned char *png, size_t png_bytes, const struct image *image,
                      size_t idat_limit, enum png_filter filter)
{
    size_t stream_bytes;
    unsigned char *stream =
        idat_stream(png, png_bytes, image->width, image->height, idat_limit, &stream_bytes);
    /* zlib (RFC 1950): deflate, a window of at most 32 KiB, no preset dictionary, check bits. */
    assert_true(stream_bytes >= 2 + 4);
    assert_int_equal(stream[0] & 0x0f, 8);
    assert_true((stream[0] >> 4) <= 7);
    assert_int_equal(stream[1] & 0x20, 0);
    assert_int_equal((stream[0] * 256 + stream[1]) % 31, 0);

    int inflated_bytes = 0;
    unsigned char *inflated =
        (unsigned char *)stbi_zlib_decode_malloc((const char *)stream, (int)stream_bytes, &inflated_bytes);
    if (!inflated)
        fail_msg("%dx%d: stb_image cannot inflate the stream: %s", image->width, image->height,
                 stbi_failure_reason());
    size_t row_bytes = (size_t)image->width * 3;
    assert_int_equal(inflated_bytes, (size_t)image->height * (row_bytes + 1));
    /* stb_image does not check the Adler-32: this does. */
    assert_int_equal(naive_adler32(1, inflated, (size_t)inflated_bytes),
                     get_u32(stream + stream_bytes - 4));
    for (int y = 0; y < image->height; ++y) {
        int type = inflated[(size_t)y * (row_bytes + 1)];
        if (filter == PNG_FILTER_ADAPTIVE)
            assert_in_range(type, 0, 4);
        else if (y > 0 || (filter != PNG_FILTER_UP && filter != PNG_FILTER_PAETH))
            assert_int_equal(type, filter);
        else /* against the zero row above the first, Up is written as None and Paeth as Sub */
            assert_int_equal(type, filter == PNG_FILTER_UP ? 0 : 1);
    }
    unsigned char *pixels = malloc(row_bytes * image->height);
    assert_non_null(pixels);
    unfilter(inflated, image->width, image->height, pixels);
    assert_same_pixels(pixels, image, "the test's own unfiltering");
    free(pixels);

    int width, height, channels;
    pixels = stbi_load_from_memory(png, (int)png_bytes, &width, &height, &channels, 3);
    if (!pixels)
        fail_msg("%dx%d: stb_image cannot decode: %s", image->width, image->height, stbi_failure_reason());
    assert_int_equal(width, image->width);
    assert_int_equal(height, image->height);
    assert_int_equal(channels, 3);
    assert_same_pixels(pixels, image, "stb_image");
    stbi_image_free(pixels);
    free(inflated);
    free(stream);
}

/* ---- Images ---- */

/* What the stages render, roughly: a flat sky, a floor shaded from row to row, shaded discs,
 * and (with noise set) a band of noise that does not compress, for stored blocks. */
static void benchmark_like(struct image *image, int width, int height, int noise)
{
    assert_int_equal(image_alloc(image, width, height), 0);
    unsigned int state = 12345u + (unsigned)width * 31u + (unsigned)height;
    int discs = 7;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            unsigned char *p = image->rgb + ((size_t)y * width + x) * 3;
            if (y < height / 2) {
                p[0] = 94, p[1] = 156, p[2] = 255;
            } else {
                int shade = 20 + 60 * (y - height / 2) / (height / 2 + 1);
                p[0] = (unsigned char)shade, p[1] = (unsigned char)(shade + 5),
                p[2] = (unsigned char)(shade + 15 + x * 8 / width);
            }
            for (int d = 0; d < discs; ++d) {
                double cx = width * (d + 0.5) / discs, cy = height * 0.45;
                double r = width / (2.5 * discs) + 1;
                double dx = (x - cx) / r, dy = (y - cy) / r, q = dx * dx + dy * dy;
                if (q < 1) {
                    double light = 1 - q;
                    p[0] = (unsigned char)(40 + 200 * light * (d % 3 == 0));
                    p[1] = (unsigned char)(40 + 200 * light * (d % 3 == 1));
                    p[2] = (unsigned char)(40 + 200 * light * (d % 3 == 2));
                }
            }
            if (noise && y >= height * 8 / 10 && y < height * 8 / 10 + height / 50 + 1)
                for (int c = 0; c < 3; ++c) {
                    state = state * 1103515245u + 12345u;
                    p[c] = (unsigned char)(state >> 24);
                }
        }
}

#endif
