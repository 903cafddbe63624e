/* The scene in constant memory: a small read-only space whose cache on each SM broadcasts one
 * address to a whole warp. The host copies the scene in (cudaMemcpyToSymbol); the kernel reads it.
 */

#define MAX_CONSTANT_SPHERES 2048 /* 2048 * 28 bytes: most of constant memory's 64 KiB */

__constant__ Sphere constant_spheres[MAX_CONSTANT_SPHERES];
__constant__ Light constant_light;
__constant__ Camera constant_camera;
