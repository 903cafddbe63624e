/* The bins, worked out on the GPU once per frame before the bands. */
/* One thread per tile and mask word: the bits of the 32 spheres of that word. The tile's rays
 * end on a rectangle of the image plane, so the widest angle from the ray through its centre
 * is at a corner. */
__device__ void bin_tiles(int index, unsigned int *tile_bins, int tiles_x, int tiles_y,
                          int mask_words, int sphere_count, int width, int height)
{
    if (index >= tiles_x * tiles_y * mask_words) {
        return;
    }
    const int word = index % mask_words, tile = index / mask_words;
    const int i0 = (tile % tiles_x) * TILE_SIZE, j0 = (tile / tiles_x) * TILE_SIZE;
    const int i1 = min(i0 + TILE_SIZE, width) - 1, j1 = min(j0 + TILE_SIZE, height) - 1;
    const float3 origin = constant_camera.origin;
    const float x0 = 2.0f * ((float)i0 + 0.5f) / (float)(width - 1) - 1.0f;
    const float x1 = 2.0f * ((float)i1 + 0.5f) / (float)(width - 1) - 1.0f;
    const float y0 = 1.0f - 2.0f * ((float)j0 + 0.5f) / (float)(height - 1);
    const float y1 = 1.0f - 2.0f * ((float)j1 + 0.5f) / (float)(height - 1);
    const float3 axis =
        unit3(sub3(make_float3(0.5f * (x0 + x1), 0.5f * (y0 + y1), -1.0f), origin));
    float spread = 0.0f;
    for (int corner = 0; corner < 4; corner++) {
        const float3 d = sub3(make_float3(corner & 1 ? x1 : x0, corner & 2 ? y1 : y0, -1.0f),
                              origin);
        spread = fmaxf(spread, angle_between_units(axis, unit3(d)));
    }
    /* Past a right angle the corners no longer bound the tile: the directions within spread of
     * the axis are no longer a convex cone, and a ray through the tile's middle may leave the
     * corners' cone (a camera a hair from the image plane: tools/difftest.sh, seed 13). Such a
     * tile keeps every sphere. */
    if (!(spread < WIDEST_CORNER_SPREAD)) {
        spread = PI_RADIANS;
    }
    unsigned int bits = 0;
    for (int b = 0; b < 32 && word * 32 + b < sphere_count; b++) {
        if (cone_may_hit(origin, 0.0f, axis, spread, false, PRIMARY_MARGIN, word * 32 + b)) {
            bits |= 1u << b;
        }
    }
    tile_bins[index] = bits;
}

/* One thread per light-buffer cell and mask word; the extra last row keeps every sphere. A ray
 * that uses a cell starts within shadow_near + LIGHT_OFFSET of the light, so within that plus
 * |c - light| of a sphere: its radius grows by SHADOW_REACH times that (SHADOW_REACH). */
__device__ void bin_light(int index, unsigned int *light_bins, int mask_words, int sphere_count,
                          float shadow_near)
{
    const int cells = 3 * LIGHT_CELLS * LIGHT_CELLS;
    if (index >= (cells + 1) * mask_words) {
        return;
    }
    const int word = index % mask_words, cell = index / mask_words;
    unsigned int bits = 0;
    if (cell == cells) {
        bits = ~0u;
    } else {
        const int face = cell / (LIGHT_CELLS * LIGHT_CELLS);
        const int cu = cell / LIGHT_CELLS % LIGHT_CELLS, cv = cell % LIGHT_CELLS;
        const float u0 = -1.0f + 2.0f * cu / LIGHT_CELLS, u1 = -1.0f + 2.0f * (cu + 1) / LIGHT_CELLS;
        const float v0 = -1.0f + 2.0f * cv / LIGHT_CELLS, v1 = -1.0f + 2.0f * (cv + 1) / LIGHT_CELLS;
        float3 corners[5]; /* the centre, then the four corners, on the face at distance 1 */
        for (int c = 0; c < 5; c++) {
            const float u = c == 0 ? 0.5f * (u0 + u1) : c & 1 ? u1 : u0;
            const float v = c == 0 ? 0.5f * (v0 + v1) : c & 2 ? v1 : v0;
            corners[c] = unit3(face == 0   ? make_float3(1.0f, u, v)
                               : face == 1 ? make_float3(u, 1.0f, v)
                                           : make_float3(u, v, 1.0f));
        }
        float spread = 0.0f;
        for (int c = 1; c < 5; c++) {
            spread = fmaxf(spread, angle_between_units(corners[0], corners[c]));
        }
        for (int b = 0; b < 32 && word * 32 + b < sphere_count; b++) {
            const float3 to_centre =
                sub3(constant_spheres[word * 32 + b].center, constant_light.position);
            const float reach =
                SHADOW_REACH * (shadow_near + LIGHT_OFFSET + sqrtf(dot3(to_centre, to_centre)));
            if (cone_may_hit(constant_light.position, LIGHT_OFFSET + reach, corners[0], spread,
                             true, SHADOW_MARGIN, word * 32 + b)) {
                bits |= 1u << b;
            }
        }
    }
    light_bins[index] = bits;
}
