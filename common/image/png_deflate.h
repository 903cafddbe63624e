/* One chunk of an image's rows made into a raw deflate stream on its own (ISA-L), for the
 * parallel PNG encoder (png_encode.c): the rows are filtered a few at a time into a buffer that
 * stays in the cache, check-summed (Adler-32) and deflated from there. */
#ifndef PNG_DEFLATE_H
#define PNG_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "image/png_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ISA-L's level 2 (of 0 to 3): on the benchmark image level 1 is no faster and level 3 slower
 * and larger (png_encode.c's measurements). */
#define PNG_DEFLATE_LEVEL 2

struct png_deflated {
    unsigned char *data; /* the raw deflate stream, malloc'd; free() it */
    size_t bytes;
    uint32_t adler;     /* Adler-32 of the filtered rows, the data the stream inflates to */
    uint64_t raw_bytes; /* their length: rows * (1 + 3 * width) */
};

/* Deflates rows first_row .. first_row + row_count - 1 of image, each filtered with filter. The
 * stream ends on a byte boundary with no final block (a sync flush), so that the next chunk's
 * stream can follow it, unless last is set: then its last block is the final one. Returns 0,
 * or -1 with a one-line reason in error (out of memory, or what ISA-L returned). */
int png_deflate_rows(const struct image *image, int first_row, int row_count,
                     enum png_filter filter, int last, struct png_deflated *out, char *error,
                     size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
