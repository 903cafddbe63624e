/* A ray against one sphere: |origin + t direction - centre|^2 = radius^2 solved for t. */

/* Returns true and the nearest positive distance along the ray in *t. */
__device__ bool has_intersection(Vec3f origin, Vec3f direction, Sphere sphere, float *t)
{
    Vec3f oc = vec3f_sub(origin, sphere.center);
    float a = vec3f_dot(direction, direction);
    float b = 2.0f * vec3f_dot(direction, oc);
    float radius_squared = pow(sphere.radius, 2);
    float c = vec3f_dot(oc, oc) - radius_squared;
    float discriminant = b * b - 4.0f * a * c;
    if (discriminant < 0.0f) {
        return false;
    }
    float t0 = (-b - sqrt(discriminant)) / (2.0f * a);
    float t1 = (-b + sqrt(discriminant)) / (2.0f * a);
    if (t0 <= 0.0f && t1 <= 0.0f) {
        return false;
    }
    if (t0 > 0.0f && t1 <= 0.0f) {
        *t = t0;
        return true;
    }
    if (t0 <= 0.0f && t1 > 0.0f) {
        *t = t1;
        return true;
    }
    *t = t0 < t1 ? t0 : t1;
    return true;
}
