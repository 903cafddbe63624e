#include "image/adler32_combine.h"

/* Adler-32 (RFC 1950) keeps two sums modulo 65521: s1 = 1 + the sum of the bytes, s2 = the sum
 * of s1 after each byte. For A followed by B (n bytes), each of B's n running s1 values is B's own
 * plus A's bytes, s1_A - 1, so
 *     s1 = s1_A + s1_B - 1,    s2 = s2_A + s2_B + n * (s1_A - 1)    (mod 65521).
 * zlib's adler32_combine() computes the same; this one stays in 64-bit integers for clarity. */
#define ADLER_MODULUS 65521u

uint32_t adler32_combine(uint32_t adler_a, uint32_t adler_b, uint64_t length_b)
{
    uint64_t s1_a = adler_a & 0xffffu, s2_a = adler_a >> 16;
    uint64_t s1_b = adler_b & 0xffffu, s2_b = adler_b >> 16;
    uint64_t n = length_b % ADLER_MODULUS;
    /* + ADLER_MODULUS keeps the differences non-negative: every sum is below 65521 already. */
    uint64_t s1 = (s1_a + s1_b + ADLER_MODULUS - 1) % ADLER_MODULUS;
    uint64_t s2 = (s2_a + s2_b + n * ((s1_a + ADLER_MODULUS - 1) % ADLER_MODULUS)) % ADLER_MODULUS;
    return (uint32_t)(s2 << 16 | s1);
}
