/* The closest sphere along a reflection ray. */
/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. Only the spheres of the warp's packet bin, in sphere order. The
 * direction is the reflection before normalize3 (the packet's bound does not care about its
 * length); it is normalised only when a sphere is left to test, and returned in *direction_out. */
__device__ int closest_sphere(float3 origin, float3 mirror, const float4 *bounds, int sphere_count,
                              float *distance, float3 *direction_out)
{
    const Packet packet = warp_packet(origin, mirror);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    float3 direction = mirror;
    float a = 0.0f;
    bool normalized = false;
    for (int first = 0; first < sphere_count; first += 32) {
        unsigned int bits = packet_bits(&packet, bounds, first, sphere_count);
        while (bits != 0) {
            const int s = first + __ffs(bits) - 1;
            bits &= bits - 1;
            float k, t;
            const float3 oc = from_sphere(origin, constant_geometry[s], &k);
            /* Outside the sphere (k > 0) and leaving it: has_intersection would say no. The
             * cosine between mirror and oc is above 0.001, so the normalised direction leaves
             * too, whatever its rounding (and half_b clears 1e-18). */
            const float away = dot3(mirror, oc);
            if (k > 0.0f && away > 1e-17f && away * away > 1e-6f * (k + constant_geometry[s].w)) {
                continue;
            }
            if (!normalized) {
                direction = normalize3(mirror);
                a = dot3(direction, direction);
                normalized = true;
            }
            if (has_intersection(oc, k, direction, a, &t) && t < closest_distance) {
                closest_distance = t;
                closest = s;
            }
        }
    }
    *distance = closest_distance;
    *direction_out = direction;
    return closest;
}
