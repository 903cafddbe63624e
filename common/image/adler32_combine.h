/* The Adler-32 of two pieces of data put end to end, from the Adler-32s of the pieces: what lets
 * the PNG encoder (png_encode.c) check-sum its row chunks on separate threads. */
#ifndef ADLER32_COMBINE_H
#define ADLER32_COMBINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The Adler-32 of A followed by B, given adler_a of A, adler_b of B and B's length in bytes
 * (the Adler-32 of nothing is 1, as isal_adler32(1, data, 0) returns). */
uint32_t adler32_combine(uint32_t adler_a, uint32_t adler_b, uint64_t length_b);

#ifdef __cplusplus
}
#endif

#endif
