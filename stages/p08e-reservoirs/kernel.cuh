/* The kernels: a frame is two launches over the pixels, passes 1-2 and 3-4 of
 * pathtrace/pt_reservoirs.h, a thread a pixel. */

/* The world the passes of pt_reservoirs.h read, on the GPU: the host's sizes, camera, sky and
 * depth (passed by value; its pointers, the host's, are replaced here) with p08b's places for
 * the scene: spheres and materials in constant memory, the light list in global memory. */
__device__ static struct pt_world device_world(struct pt_world world,
                                               const struct pt_light *lights)
{
    world.spheres = c_spheres;
    world.materials = c_materials;
    world.lights = lights;
    return world;
}

/* Passes 1 and 2 of frame `frame`, pixel p: the camera ray's hit and the reservoir of nee's 8
 * candidates there (initial RIS) into `hits` and `current`, merged first with the reservoir
 * the pixel ended the previous frame with (`final`, made at its hit in `before`) when that one
 * stands for candidates. Reads and writes pixel p only. */
__global__ void initial_ris_kernel(const struct pt_light *lights, struct pt_world world,
                                   struct pt_primary_buffers hits, struct pt_primary_buffers before,
                                   struct pt_reservoir_buffers current,
                                   struct pt_reservoir_buffers final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    struct pt_primary_hit hit;
    struct pt_restir_reservoir r = pt_restir_primary(&w, p % w.width, p / w.width, frame, &hit);
    /* One int of `final` decides, as in build/pt-reference: 0 in frame 0 (cudaMemset), whose
     * `before` was never written, and wherever the previous frame had no reservoir. */
    if (final.count[p] > 0)
        r = pt_restir_temporal(&w, hit, r, pt_primary_load(before, (unsigned)p),
                               pt_reservoir_load(final, (unsigned)p), (unsigned)p, frame);
    pt_primary_store(hits, (unsigned)p, hit);
    pt_reservoir_store(current, (unsigned)p, r);
}

/* Passes 3 and 4 of frame `frame`, pixel p: its reservoir after the temporal pass merged with
 * up to three neighbours' (`current` and `hits` of every pixel, written by initial_ris_kernel)
 * into `final`, then sample `frame` of the pixel as nee makes it, but for the camera hit's
 * shadow ray, which goes to the sample that reservoir keeps; added into the pixel's sums. */
__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            struct pt_world world, struct pt_primary_buffers hits,
                            struct pt_reservoir_buffers current,
                            struct pt_reservoir_buffers final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    int i = p % w.width, j = p / w.width;
    struct pt_restir_reservoir r = pt_restir_spatial(&w, hits, current, i, j, frame);
    pt_reservoir_store(final, (unsigned)p, r);
    int rays; /* not this stage's to count: common/runtime/count_rays.cu counts them after the render */
    struct spec_vec3 colour = pt_restir_trace_sample(&w, i, j, frame, r, &rays);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}
