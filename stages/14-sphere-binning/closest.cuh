/* The closest sphere along a reflection ray. */
/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. */
__device__ int closest_sphere(float3 origin, float3 direction, int sphere_count, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int s = 0; s < sphere_count; s++) {
        float k, t;
        const float3 oc = from_sphere(origin, constant_geometry[s], &k);
        if (has_intersection(oc, k, direction, a, &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}
