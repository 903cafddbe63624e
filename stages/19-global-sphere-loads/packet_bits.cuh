/* A warp packet's bin: which spheres its rays can meet, asked by its lanes together. */
/* Can a ray of the packet meet sphere s (grown by 1% and by the packet's radius)? The angle
 * between the axis and the centre, seen from the apex, must be at most the spread plus the
 * sphere's angular radius b (sin b = R / |v|). In cosines, times |v|: axis.v >=
 * cos(spread) sqrt(|v|^2 - R^2) - sin(spread) R. No division, no arc sine. A spread of 90 degrees
 * or more keeps every sphere; so does a NaN. The centre and the grown radius come from bounds,
 * in global memory: the lanes of the warp ask for different spheres at once. */
__device__ bool packet_may_hit(const Packet *packet, const float4 *bounds, int s)
{
    const float4 bound = __ldg(&bounds[s]);
    const float3 to_centre = sub3(make_float3(bound.x, bound.y, bound.z), packet->apex);
    const float radius = bound.w + packet->radius;
    const float distance_squared = dot3(to_centre, to_centre);
    const float tangent_squared = distance_squared - radius * radius;
    if (!(tangent_squared > 0.0f) || !(packet->cos_spread > 0.0f)) {
        return true;
    }
    const float tangent = tangent_squared * rsqrtf(tangent_squared);
    return !(dot3(packet->axis, to_centre) <
             packet->cos_spread * tangent - packet->sin_spread * radius);
}

/* The packet's bin for spheres first .. first + 31: this lane's share, then the union. */
__device__ unsigned int packet_bits(const Packet *packet, const float4 *bounds, int first,
                                    int sphere_count)
{
    unsigned int bits = 0;
    for (int b = packet->rank; b < 32 && first + b < sphere_count; b += packet->lane_count) {
        if (packet_may_hit(packet, bounds, first + b)) {
            bits |= 1u << b;
        }
    }
#if __CUDA_ARCH__ >= 800
    bits = __reduce_or_sync(packet->lanes, bits);
#endif
    return bits;
}
