/* A ray against one sphere: |origin + t direction - centre|^2 = radius^2 solved for t. */

/* Returns true and the nearest positive distance along the ray in *t. */
__device__ bool has_intersection(float3 origin, float3 direction, const Sphere *sphere, float *t)
{
    const float3 oc = sub3(origin, sphere->center);
    const float a = dot3(direction, direction);
    const float b = 2.0f * dot3(direction, oc);
    const float c = dot3(oc, oc) - sphere->radius * sphere->radius;
    const float discriminant = b * b - 4.0f * a * c;
    if (discriminant < 0.0f) {
        return false;
    }
    const float root = sqrtf(discriminant);
    const float two_a = 2.0f * a;
    const float t0 = (-b - root) / two_a;
    const float t1 = (-b + root) / two_a;
    /* t0 <= t1 whenever both are numbers (root >= 0, 2a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    *t = t0 > 0.0f ? t0 : t1;
    return *t > 0.0f;
}
