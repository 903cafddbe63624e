/* The box test of the walk, lean: the cone test of spec_bvh_cone_entry on a child's packed box,
 * each axis's near and far plane picked by one byte permutation chosen once a ray, the minima and
 * maxima the hardware's own. */

/* For each axis, the __byte_perm selector that moves, out of the two words of a packed box that
 * hold the axis's planes, the plane the ray enters through to a word's low half and the one it
 * leaves through to its high half. The box's words (node.cuh): x = lo.x | lo.y << 16,
 * y = lo.z | hi.x << 16, z = hi.y | hi.z << 16; the permutation's bytes 0-3 are its first word's,
 * 4-7 its second's. An axis the ray runs down (a negative enter scale, as spec_bvh_cone_axis asks)
 * enters through hi. */
struct plane_picks {
    unsigned int x, y, z; /* of (box.x, box.y), (box.x, box.z), (box.y, box.z) */
};

__device__ inline struct plane_picks plane_picks_of_cone(const struct spec_bvh_cone *cone)
{
    struct plane_picks picks;
    picks.x = cone->enter_scale[0] < 0.0f ? 0x1076u : 0x7610u; /* lo.x: bytes 0-1, hi.x: 6-7 */
    picks.y = cone->enter_scale[1] < 0.0f ? 0x3254u : 0x5432u; /* lo.y: bytes 2-3, hi.y: 4-5 */
    picks.z = cone->enter_scale[2] < 0.0f ? 0x1076u : 0x7610u; /* lo.z: bytes 0-1, hi.z: 6-7 */
    return picks;
}

/* Where the ray's cone enters the child's packed box, or INFINITY where it cannot meet a sphere
 * inside at or before t_max: spec_bvh_cone_entry's answer for the same box. Each axis's two planes
 * come out of one permutation, near in the low half and far in the high, instead of a compare and
 * two selects an axis; fmaxf and fminf are one instruction each (FMNMX) and return, as
 * spec_max_num and spec_min_num do, the other operand where one is NaN; they may differ from them
 * only in the sign of a zero, which no comparison below or in the walk sees. */
__device__ __forceinline__ float lean_cone_entry(uint3 box, const struct spec_bvh_cone *cone,
                                                 struct plane_picks picks, float t_max)
{
    const unsigned int x = __byte_perm(box.x, box.y, picks.x);
    const unsigned int y = __byte_perm(box.x, box.z, picks.y);
    const unsigned int z = __byte_perm(box.y, box.z, picks.z);
    const float ex =
        SPEC_BVH_FMA(half_bits_to_float(x), cone->enter_scale[0], cone->enter_shift[0]);
    const float lx =
        SPEC_BVH_FMA(half_bits_to_float(x >> 16), cone->leave_scale[0], cone->leave_shift[0]);
    const float ey =
        SPEC_BVH_FMA(half_bits_to_float(y), cone->enter_scale[1], cone->enter_shift[1]);
    const float ly =
        SPEC_BVH_FMA(half_bits_to_float(y >> 16), cone->leave_scale[1], cone->leave_shift[1]);
    const float ez =
        SPEC_BVH_FMA(half_bits_to_float(z), cone->enter_scale[2], cone->enter_shift[2]);
    const float lz =
        SPEC_BVH_FMA(half_bits_to_float(z >> 16), cone->leave_scale[2], cone->leave_shift[2]);
    const float enter = fmaxf(fmaxf(ex, ey), fmaxf(ez, 0.0f));
    const float leave = fminf(fminf(lx, ly), lz);
    return enter > leave || enter > t_max ? INFINITY : enter;
}
