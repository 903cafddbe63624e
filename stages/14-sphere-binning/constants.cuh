/* The scene in constant memory: a small read-only space whose cache on each SM broadcasts one
 * address to a whole warp. The host copies the scene in (cudaMemcpyToSymbol); the kernel reads it.
 */

/* 1024 * (28 + 16 + 16) bytes: most of constant memory's 64 KiB */
#define MAX_CONSTANT_SPHERES 1024

__constant__ Sphere constant_spheres[MAX_CONSTANT_SPHERES];
/* Per sphere: centre x, y, z and the radius squared. */
__constant__ float4 constant_geometry[MAX_CONSTANT_SPHERES];
/* Per sphere, for rays from the camera: oc = camera - centre, and k = oc.oc - r^2. */
__constant__ float4 constant_from_camera[MAX_CONSTANT_SPHERES];
__constant__ Light constant_light;
__constant__ Camera constant_camera;
