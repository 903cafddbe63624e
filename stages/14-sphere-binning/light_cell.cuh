/* Which cell of the light buffer a shadow ray's line falls in. */
/* The light-buffer cell of a line through the light with this direction: the face of the
 * cube where the direction's largest component points (either sign: d and -d share a line),
 * then the other two components over it, from -1..1 to 0..LIGHT_CELLS-1. A direction of zero or
 * NaN gets the last row, which holds every sphere. */
__device__ const unsigned int *light_cell(const unsigned int *light_bins, float3 direction,
                                          int mask_words)
{
    const float ax = fabsf(direction.x), ay = fabsf(direction.y), az = fabsf(direction.z);
    float major, u, v;
    int face;
    if (ax >= ay && ax >= az) {
        face = 0, major = direction.x, u = direction.y, v = direction.z;
    } else if (ay >= az) {
        face = 1, major = direction.y, u = direction.x, v = direction.z;
    } else {
        face = 2, major = direction.z, u = direction.x, v = direction.y;
    }
    if (!(fabsf(major) > 0.0f)) {
        return light_bins + (size_t)3 * LIGHT_CELLS * LIGHT_CELLS * mask_words;
    }
    /* An approximate quotient is enough: the bins' margin covers a direction that lands in the
     * neighbouring cell. */
    const float scale = 0.5f * LIGHT_CELLS;
    const int cu = min(max((int)((__fdividef(u, major) + 1.0f) * scale), 0), LIGHT_CELLS - 1);
    const int cv = min(max((int)((__fdividef(v, major) + 1.0f) * scale), 0), LIGHT_CELLS - 1);
    return light_bins + ((size_t)(face * LIGHT_CELLS + cu) * LIGHT_CELLS + cv) * mask_words;
}
