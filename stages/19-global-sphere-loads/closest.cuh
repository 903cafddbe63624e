/* The closest sphere along a reflection ray. */
/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. Only the spheres of the warp's packet bin, in sphere order. */
__device__ int closest_sphere(float3 origin, float3 direction, const float4 *bounds,
                              int sphere_count, float *distance)
{
    const float a = dot3(direction, direction);
    const Packet packet = warp_packet(origin, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int first = 0; first < sphere_count; first += 32) {
        unsigned int bits = packet_bits(&packet, bounds, first, sphere_count);
        while (bits != 0) {
            const int s = first + __ffs(bits) - 1;
            bits &= bits - 1;
            float k, t;
            const float3 oc = from_sphere(origin, constant_geometry[s], &k);
            if (has_intersection(oc, k, direction, a, &t) && t < closest_distance) {
                closest_distance = t;
                closest = s;
            }
        }
    }
    *distance = closest_distance;
    return closest;
}
