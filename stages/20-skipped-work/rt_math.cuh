/* Stage 20's math: common/raytrace/rt_math.cuh with what this stage's lesson changes in it. The
 * light carries the cosine below which the specular term cannot change a bit, the camera its
 * background over 255; normalize3 divides by the length through one refined reciprocal where the
 * division's fast path covers the operands (the same bits as three divisions); channel_from_float
 * clamps with fminf and fmaxf. */
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
    /* Below its square root, the specular cosine cannot change a bit (stage 20's render.cu). */
    float negligible_cosine_squared;
};

struct Camera {
    float3 origin;
    float3 background;      /* 0..255: what a ray that hits nothing sees */
    float3 background_unit; /* the same over 255, worked out once on the host */
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

/* a / b from y, the refined reciprocal of b: the last three steps of the GPU's own IEEE division
 * (the quotient, its remainder, the corrected quotient), as its fast path computes them. */
__device__ inline float quotient_refined(float a, float b, float y)
{
    const float q = fmaf(a, y, 0.0f);
    return fmaf(y, fmaf(q, -b, a), q);
}

/* Three quotients by the length, correctly rounded: the same bits as SPEC.md's three divisions
 * (docs/reference.md: same picture). On the GPU one reciprocal serves the three, where the
 * operands are in a range the division's fast path covers (stage 20's render.cu); elsewhere,
 * and on the host, three divisions. */
__host__ __device__ inline float3 normalize3(float3 v)
{
    float length = sqrtf(dot3(v, v));
#ifdef __CUDA_ARCH__
    const float smallest = fminf(fminf(fabsf(v.x), fabsf(v.y)), fabsf(v.z));
    if (length >= 0x1p-20f && length <= 0x1p100f && smallest >= length * 0x1p-60f) {
        float y0; /* the hardware's approximate reciprocal, as the division's first step */
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(length));
        const float y = fmaf(y0, fmaf(y0, -length, 1.0f), y0);
        return make_float3(quotient_refined(v.x, length, y), quotient_refined(v.y, length, y),
                           quotient_refined(v.z, length, y));
    }
#endif
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
 * clamped to 0..255, NaN to 0 (fmaxf returns the number when the other operand is NaN). */
__device__ inline unsigned char channel_from_float(float value)
{
    return (unsigned char)fminf(fmaxf(value, 0.0f), 255.0f);
}

/* size_t: three bytes per pixel pass 2^31 for images over 26754x26754. */
__device__ inline void store_pixel(unsigned char *framebuffer, int pixel, float3 colour)
{
    unsigned char *rgb = framebuffer + (size_t)3 * (size_t)pixel;
    rgb[0] = channel_from_float(colour.x);
    rgb[1] = channel_from_float(colour.y);
    rgb[2] = channel_from_float(colour.z);
}
