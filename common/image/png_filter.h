/* PNG row filters (PNG specification, section 9): each row stored as a filter-type byte and the
 * row's bytes minus a prediction from the pixel to the left and the row above. The encoder
 * (png_encode.c) filters a few rows at a time into a small buffer that the deflate then reads. */
#ifndef PNG_FILTER_H
#define PNG_FILTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The filter-type bytes PNG defines (Average, 3, is not used here), and one choice per row. */
enum png_filter {
    PNG_FILTER_NONE = 0,
    PNG_FILTER_SUB = 1,   /* minus the byte one pixel to the left */
    PNG_FILTER_UP = 2,    /* minus the byte above */
    PNG_FILTER_PAETH = 4, /* minus whichever of left, above and above-left is nearest to
                           * left + above - above-left */
    PNG_FILTER_ADAPTIVE = 5 /* not a PNG type: per row, the one of the four with the smallest sum
                             * of |filtered byte as signed| (libpng's heuristic) */
};

/* Writes one row of RGB pixels (3 bytes each) as PNG stores it: out[0] the filter type,
 * out[1..bytes] the filtered bytes. prior is the row above, NULL for the image's first row
 * (PNG then predicts from zeros). scratch, needed only by PNG_FILTER_ADAPTIVE, holds
 * 4 * (bytes + 1) bytes. */
void png_filter_row(enum png_filter filter, const unsigned char *row, const unsigned char *prior,
                    size_t bytes, unsigned char *out, unsigned char *scratch);

#ifdef __cplusplus
}
#endif

#endif
