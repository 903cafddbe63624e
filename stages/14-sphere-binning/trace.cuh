/* The rays that walk a bin: a primary ray the bin of its tile, a shadow ray that of its light
 * cell. A warp walks the union of its lanes' bins, in sphere order. */
/* A warp loops over the union of its lanes' bins: the same spheres in every lane, read from
 * constant memory at once. A lane may test spheres it cannot hit; that costs time, never bits.
 * (__reduce_or_sync is one instruction from compute capability 8.0; older GPUs skip it and
 * each lane loops over its own bin.) */
__device__ inline unsigned int warp_union(unsigned int bits)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(__activemask(), bits);
#else
    return bits;
#endif
}

/* The closest hit of a primary ray under the far plane (as closest_sphere, closest.cuh): its
 * origin is the camera, whose oc and k are ready per sphere. Only the spheres of the tile's bin
 * (mask_words words of bits), in sphere order. */
__device__ int closest_sphere_from_camera(float3 direction, const unsigned int *bin,
                                          int mask_words, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int w = 0; w < mask_words; w++) {
        unsigned int bits = warp_union(bin[w]);
        while (bits != 0) {
            const int s = w * 32 + __ffs(bits) - 1;
            bits &= bits - 1;
            const float4 from_camera = constant_from_camera[s];
            const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
            float t;
            if (has_intersection(oc, from_camera.w, direction, a, &t) && t < closest_distance) {
                closest_distance = t;
                closest = s;
            }
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides.
 * Only the spheres of the ray's light-buffer cell, when the ray starts within shadow_near of the
 * light (direction ends at the light, up to 0.002: a is the distance squared); else every sphere,
 * the last row (NaN too). */
__device__ float shadow_factor(float3 origin, float3 direction, const unsigned int *light_bins,
                               int mask_words, float near_squared)
{
    const float a = dot3(direction, direction);
    const unsigned int *bin =
        a <= near_squared ? light_cell(light_bins, direction, mask_words)
                          : light_bins + (size_t)3 * LIGHT_CELLS * LIGHT_CELLS * mask_words;
    for (int w = 0; w < mask_words; w++) {
        unsigned int bits = warp_union(bin[w]);
        while (bits != 0) {
            const int s = w * 32 + __ffs(bits) - 1;
            bits &= bits - 1;
            float k, t;
            const float3 oc = from_sphere(origin, constant_geometry[s], &k);
            if (has_intersection(oc, k, direction, a, &t) && t > 1e-6f) {
                return 0.35f;
            }
        }
    }
    return 1.0f;
}
