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
    /* The study's branch-free choice: each term is a product of 0/1 factors, and exactly one
     * term is not zero: -1 (no positive root), t0, t1, or the smaller of both. Multiplying a
     * finite float by 0 or 1 and adding zeros is exact, so *t holds the same bits as stage 07's
     * t0 > 0 ? t0 : t1 whenever it returns true (t0 <= t1, so fminf gives t0). */
    const bool t0_is_pos = t0 > 0.0f;
    const bool t1_is_pos = t1 > 0.0f;
    *t = (!t0_is_pos * !t1_is_pos * -1) + (t0_is_pos * !t1_is_pos * t0) +
         (!t0_is_pos * t1_is_pos * t1) + (t0_is_pos * t1_is_pos * fminf(t0, t1));
    return *t > 0.0f;
}
