/* A ray against every sphere: the closest hit (the primary and the reflection ray) and whether
 * anything blocks the light (the shadow rays). */

/* The closest hit under the far plane, kept in one float while looping (a hit is always > 0);
 * returns its index or -1. Tests the count spheres of list (ascending indices), or the first
 * count spheres when list is NULL. */
__device__ int closest_sphere(float3 origin, float3 direction, const unsigned short *list,
                              int count, float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int n = 0; n < count; n++) {
        const int s = list ? list[n] : n;
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

/* The same for a primary ray: its origin is the camera, whose oc and k are ready per sphere. */
__device__ int closest_sphere_from_camera(float3 direction, const unsigned short *list, int count,
                                          float *distance)
{
    const float a = dot3(direction, direction);
    int closest = -1;
    float closest_distance = FAR_PLANE;
    for (int n = 0; n < count; n++) {
        const int s = list[n];
        const float4 from_camera = constant_from_camera[s];
        const float3 oc = make_float3(from_camera.x, from_camera.y, from_camera.z);
        float t;
        if (has_intersection(oc, from_camera.w, direction, a, &t) && t < closest_distance) {
            closest_distance = t;
            closest = s;
        }
    }
    *distance = closest_distance;
    return closest;
}

/* 0.35 when any sphere lies along the ray towards the light, else 1: the first blocker decides. */
__device__ float shadow_factor(float3 origin, float3 direction, const unsigned short *list,
                               int count)
{
    const float a = dot3(direction, direction);
    for (int n = 0; n < count; n++) {
        const int s = list ? list[n] : n;
        float k, t;
        const float3 oc = from_sphere(origin, constant_geometry[s], &k);
        if (has_intersection(oc, k, direction, a, &t) && t > 1e-6f) {
            return 0.35f;
        }
    }
    return 1.0f;
}
