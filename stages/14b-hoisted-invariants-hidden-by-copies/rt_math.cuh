/* Stage 14b's math: common/raytrace/rt_math.cuh with the camera's background over 255 as well,
 * worked out once on the host for the reflections that hit nothing. */
#include "raytrace/scene.h"

#define FAR_PLANE 100.0f

struct Sphere {
    float3 center;
    float radius;
    float3 color;
};

struct Light {
    float3 position;
    float3 color;
    float ambient, diffuse, specular;
};

struct Camera {
    float3 origin;
    float3 background; /* 0..255: what a ray that hits nothing sees */
    float3 background_unit; /* the same over 255, what a reflection that hits nothing sees */
};

/* ---- the vector type: CUDA's float3 (vector_types.h) and small helpers --------------------- */

__host__ __device__ inline float3 add3(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

__host__ __device__ inline float3 sub3(float3 a, float3 b)
{
    return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}

__host__ __device__ inline float3 scale3(float s, float3 v)
{
    return make_float3(s * v.x, s * v.y, s * v.z);
}

__host__ __device__ inline float3 mul3(float3 a, float3 b)
{
    return make_float3(a.x * b.x, a.y * b.y, a.z * b.z);
}

__host__ __device__ inline float dot3(float3 a, float3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* Three divisions by the length, not a multiplication by its reciprocal: the same bits as
 * SPEC.md (docs/reference.md: same picture). */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
    return make_float3(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ inline float3 cap3(float3 v)
{
    return make_float3(fminf(v.x, 1.0f), fminf(v.y, 1.0f), fminf(v.z, 1.0f));
}

/* A point or colour of the parsed scene (common/raytrace/scene.h) as a float3, on the host. */
static inline float3 float3_from(struct spec_vec3 v)
{
    return make_float3(v.x, v.y, v.z);
}

/* ---- the pixel store of an 8-bit frame buffer (stage 08 on) -------------------------------- */

/* SPEC.md's output rule, as common/image/image.c applies it on the host: truncation toward zero,
 * clamped to 0..255, NaN to 0. */
__device__ inline unsigned char channel_from_float(float value)
{
    if (!(value > 0.0f)) {
        return 0;
    }
    if (value >= 255.0f) {
        return 255;
    }
    return (unsigned char)value;
}

/* size_t: three bytes per pixel pass 2^31 for images over 26754x26754. */
__device__ inline void store_pixel(unsigned char *framebuffer, int pixel, float3 colour)
{
    unsigned char *rgb = framebuffer + (size_t)3 * (size_t)pixel;
    rgb[0] = channel_from_float(colour.x);
    rgb[1] = channel_from_float(colour.y);
    rgb[2] = channel_from_float(colour.z);
}
