/* A ray against every sphere: the closest hit (the primary and the reflection ray) and whether
 * anything blocks the light (the shadow rays). */

/* Fills distances[] for every sphere (-1 for a miss), then picks the closest hit under the far
 * plane; returns its index or -1. */
__device__ int closest_sphere(Vec3f origin, Vec3f direction, const Sphere *spheres,
                              int sphere_count, float *distance)
{
    float distances[MAX_SPHERES];
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, spheres[s], &t)) {
            distances[s] = t;
        } else {
            distances[s] = -1.0f;
        }
    }
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int s = 0; s < sphere_count; s++) {
        if (distances[s] >= 0.0f && distances[s] < closest_distance) {
            closest_distance = distances[s];
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1. */
__device__ float shadow_factor(Vec3f origin, Vec3f direction, const Sphere *spheres,
                               int sphere_count)
{
    bool in_shadow = false;
    for (int s = 0; s < sphere_count; s++) {
        float t;
        if (has_intersection(origin, direction, spheres[s], &t)) {
            if (t > 1e-6f) {
                in_shadow = true;
            }
        }
    }
    if (in_shadow) {
        return 0.35f;
    }
    return 1.0f;
}
