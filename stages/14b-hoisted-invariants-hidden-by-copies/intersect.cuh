/* A ray against one sphere: |origin + t direction - centre|^2 = radius^2 solved for t. */

/* Returns true and the nearest positive distance along the ray in *t, given oc = origin - centre,
 * k = oc.oc - r^2 and the ray's a = d.d. half_b is b / 2 and quarter_discriminant is the
 * discriminant / 4: the same roundings scaled by powers of two (see stage 12's render.cu). */
__device__ bool has_intersection(float3 oc, float k, float3 direction, float a, float *t)
{
    const float half_b = dot3(direction, oc);
    /* The origin outside the sphere (k > 0) and its centre behind (d.oc > 0): both roots are
     * negative. In floats too: then disc <= fl(h^2), and sqrt(fl(h^2)) = h exactly, so the
     * root is at most h and t1 <= 0 (h above 1e-18 keeps h^2 clear of underflow). */
    if (k > 0.0f && half_b > 1e-18f) {
        return false;
    }
    const float quarter_discriminant = half_b * half_b - a * k;
    if (quarter_discriminant < 0.0f) {
        return false;
    }
    const float root = sqrtf(quarter_discriminant);
    const float t0 = (-half_b - root) / a;
    /* t0 <= t1 whenever both are numbers (root >= 0, a >= 0, and rounding keeps the order), so
     * a positive t0 is the nearer positive root; otherwise only t1 can be. */
    if (t0 > 0.0f) {
        *t = t0;
        return true;
    }
    *t = (-half_b + root) / a;
    return *t > 0.0f;
}

/* oc and k of a ray from any origin: one 16-byte load, three subtractions and a dot product. */
__device__ inline float3 from_sphere(float3 origin, float4 geometry, float *k)
{
    const float3 oc =
        make_float3(origin.x - geometry.x, origin.y - geometry.y, origin.z - geometry.z);
    *k = dot3(oc, oc) - geometry.w;
    return oc;
}
