/* The study's math: its own 3-vector type, Vec3f, with a function for each operation, and the
 * scene's types on the GPU (a sphere, the light, the camera) made of it. Every function rounds as
 * SPEC.md writes its arithmetic, so that the picture keeps the CPU reference's bits. */

#define FAR_PLANE 100.0f

struct Vec3f {
    float x, y, z;
};

struct Sphere {
    Vec3f center;
    float radius;
    Vec3f color;
};

struct Light {
    Vec3f position;
    Vec3f color;
    float ambient, diffuse, specular;
};

struct Camera {
    Vec3f origin;
    Vec3f background; /* 0..255: what a ray that hits nothing sees */
};

/* ---- the vector type ---------------------------------------------------------------------- */

__host__ __device__ Vec3f vec3f_make(float x, float y, float z)
{
    Vec3f v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

__host__ __device__ Vec3f vec3f_add(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

__host__ __device__ Vec3f vec3f_sub(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

__host__ __device__ Vec3f vec3f_scale(float s, Vec3f v)
{
    return vec3f_make(s * v.x, s * v.y, s * v.z);
}

__host__ __device__ Vec3f vec3f_mul(Vec3f a, Vec3f b)
{
    return vec3f_make(a.x * b.x, a.y * b.y, a.z * b.z);
}

__host__ __device__ float vec3f_dot(Vec3f a, Vec3f b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__host__ __device__ float vec3f_length(Vec3f v)
{
    return sqrt(vec3f_dot(v, v));
}

__host__ __device__ Vec3f vec3f_normalize(Vec3f v)
{
    float length = vec3f_length(v);
    return vec3f_make(v.x / length, v.y / length, v.z / length);
}

__host__ __device__ float f_max(float a, float b)
{
    return a > b ? a : b;
}

__host__ __device__ float f_min(float a, float b)
{
    return a < b ? a : b;
}

__host__ __device__ Vec3f vec3f_cap(Vec3f v)
{
    return vec3f_make(f_min(v.x, 1.0f), f_min(v.y, 1.0f), f_min(v.z, 1.0f));
}

/* A point or colour of the parsed scene (common/raytrace/scene.h) as a Vec3f, on the host. */
static Vec3f vec3f_from(struct spec_vec3 v)
{
    return vec3f_make(v.x, v.y, v.z);
}
