/* PNG checks written from the specifications, not from the encoder (common/png_*.c): CRC-32 a
 * bit at a time, Adler-32 by its definition, a chunk walker and PNG's reconstruction of all five
 * filter types. Shared by tests/test_png.c and tests/test_png_stream.c; include after
 * test_support.h (cmocka). */
#ifndef PNG_CHECKS_H
#define PNG_CHECKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

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

#endif
