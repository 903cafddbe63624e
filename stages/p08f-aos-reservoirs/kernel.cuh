/* The kernels: a frame is two launches over the pixels, passes 1-2 and 3-4 of
 * pathtrace/pt_reservoirs.h, a thread a pixel. The reservoirs are arrays of structs: entry p of
 * `current` and of `final` is pixel p's whole reservoir, one 28-byte record. */

static_assert(sizeof(struct pt_restir_reservoir) == 28,
              "a reservoir record: light, normal, weight_sum, target, count, 4 bytes each");

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

/* Pass 3 of pixel (i, j): pt_restir_spatial of pathtrace/pt_reservoirs.h, the same statements
 * in the same order, on reservoirs kept as records: the pixel's record `reservoirs[pixel]`, a
 * neighbour's count `reservoirs[q].count` (4 bytes of its record) and, for a neighbour merged,
 * its record `reservoirs[q]`. The hits stay a structure of arrays, as in p08e. */
__device__ static struct pt_restir_reservoir spatial_pass(const struct pt_world *world,
                                                         struct pt_primary_buffers hits,
                                                         struct pt_restir_reservoir *reservoirs,
                                                         int i, int j, unsigned sample)
{
    unsigned pixel = (unsigned)j * (unsigned)world->width + (unsigned)i;
    struct pt_restir_reservoir r = reservoirs[pixel];
    if (r.count == 0)
        return r;
    struct pt_primary_hit here = pt_primary_load(hits, pixel);
    for (int k = 0; k < PT_RESTIR_NEIGHBOURS; ++k) {
        int x = i + pt_restir_offset(pixel, sample, 2u * (unsigned)k);
        int y = j + pt_restir_offset(pixel, sample, 2u * (unsigned)k + 1u);
        if (x < 0 || x >= world->width || y < 0 || y >= world->height || (x == i && y == j))
            continue;
        unsigned q = (unsigned)y * (unsigned)world->width + (unsigned)x;
        if (reservoirs[q].count == 0)
            continue;
        if (!pt_restir_similar(here, pt_primary_load(hits, q)))
            continue;
        struct pt_restir_reservoir other = reservoirs[q];
        pt_restir_merge(&r, here.at, other, pt_restir_sample(world, other), other.count,
                        pt_random(pixel, sample, PT_EVENT_SPATIAL,
                                  PT_SPATIAL_CHOICE_DIM + (unsigned)k));
    }
    return r;
}

/* Before frame 0: `final` is pt_restir_empty() at every pixel (light -1, the rest 0), as in
 * build/pt-reference, so that frame 0 merges no previous frame. A record's fields are not whole
 * arrays that cudaMemset could fill, so a launch writes them. */
__global__ void empty_kernel(struct pt_restir_reservoir *final, int count)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < count)
        final[p] = pt_restir_empty();
}

/* Passes 1 and 2 of frame `frame`, pixel p: the camera ray's hit and the reservoir of nee's 8
 * candidates there (initial RIS) into `hits` and `current`, merged first with the reservoir
 * the pixel ended the previous frame with (`final`, made at its hit in `before`) when that one
 * stands for candidates. Reads and writes pixel p only. */
__global__ void initial_ris_kernel(const struct pt_light *lights, struct pt_world world,
                                   struct pt_primary_buffers hits, struct pt_primary_buffers before,
                                   struct pt_restir_reservoir *current,
                                   struct pt_restir_reservoir *final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    struct pt_primary_hit hit;
    struct pt_restir_reservoir r = pt_restir_primary(&w, p % w.width, p / w.width, frame, &hit);
    /* One int of `final` decides, as in build/pt-reference: 0 in frame 0 (empty_kernel), whose
     * `before` was never written, and wherever the previous frame had no reservoir. */
    if (final[p].count > 0)
        r = pt_restir_temporal(&w, hit, r, pt_primary_load(before, (unsigned)p), final[p],
                               (unsigned)p, frame);
    pt_primary_store(hits, (unsigned)p, hit);
    current[p] = r;
}

/* Passes 3 and 4 of frame `frame`, pixel p: its reservoir after the temporal pass merged with
 * up to three neighbours' (`current` and `hits` of every pixel, written by initial_ris_kernel)
 * into `final`, then sample `frame` of the pixel as nee makes it, but for the camera hit's
 * shadow ray, which goes to the sample that reservoir keeps; added into the pixel's sums. */
__global__ void path_kernel(unsigned long long *sums, const struct pt_light *lights,
                            struct pt_world world, struct pt_primary_buffers hits,
                            struct pt_restir_reservoir *current,
                            struct pt_restir_reservoir *final, unsigned frame)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= world.width * world.height)
        return;
    struct pt_world w = device_world(world, lights);
    int i = p % w.width, j = p / w.width;
    struct pt_restir_reservoir r = spatial_pass(&w, hits, current, i, j, frame);
    final[p] = r;
    int rays; /* not this stage's to count: common/runtime/count_rays.cu counts them after the render */
    struct spec_vec3 colour = pt_restir_trace_sample(&w, i, j, frame, r, &rays);
    sums[3 * (size_t)p + 0] += pt_fixed(colour.x);
    sums[3 * (size_t)p + 1] += pt_fixed(colour.y);
    sums[3 * (size_t)p + 2] += pt_fixed(colour.z);
}
