/* A ray against every sphere: the closest hit (the primary and the reflection ray) and whether
 * anything blocks the light (the shadow rays). */

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. */
__device__ int closest_sphere(float3 origin, float3 direction, const Sphere *spheres,
                              int sphere_count, float *distance)
{
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, &spheres[s], &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ float shadow_factor(float3 origin, float3 direction, const Sphere *spheres,
                               int sphere_count)
{
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, &spheres[s], &t) && t > 1e-6f) {
            return 0.35f;
        }
    }
    return 1.0f;
}
