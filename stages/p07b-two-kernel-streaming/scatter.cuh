/* The extension kernel: each live path's nearest hit found, shaded and scattered (pt_math.h's
 * materials): the path ends, or goes on with a new ray. */

/* Samples of one pixel may end in the same launch: atomics, in any order the same sums. */
__device__ static void add_sample(unsigned long long *sums, unsigned pixel, struct spec_vec3 colour)
{
    atomicAdd(&sums[3 * (size_t)pixel + 0], (unsigned long long)pt_fixed(colour.x));
    atomicAdd(&sums[3 * (size_t)pixel + 1], (unsigned long long)pt_fixed(colour.y));
    atomicAdd(&sums[3 * (size_t)pixel + 2], (unsigned long long)pt_fixed(colour.z));
}

/* Extends the paths of stream `input` by their segment, intersection and scatter in one thread:
 * a path that ends adds what it brought back to its pixel; one that goes on is written to stream
 * 1 - input, at the slot its count's atomicAdd hands out, so the paths that go on end up side by
 * side. Nothing but the paths and the count passes to the next kernel. */
__global__ void extend_kernel(struct path_stream paths, struct path_stream next_paths,
                              struct stream_counters *counters, int input,
                              unsigned long long *sums, int sphere_count, struct spec_vec3 sky,
                              int max_depth)
{
    int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= counters->live)
        return;
    struct path path = load_path(paths, slot);
    struct hit hit = nearest_hit(path.ray, sphere_count);
    if (hit.sphere < 0) {
        add_sample(sums, path.pixel, spec_mul(path.attenuation, sky));
        return;
    }
    struct pt_scatter scatter;
    pt_scatter_hit(c_materials[hit.sphere], c_spheres[hit.sphere], path.ray.origin,
                   path.ray.direction, hit.t, path.pixel, path.frame, path.segment, &scatter);
    if (scatter.event == PT_EMITTED) {
        add_sample(sums, path.pixel, spec_mul(path.attenuation, scatter.emitted));
        return;
    }
    /* Absorbed, or still going after the last segment: it brings nothing, nothing to add. */
    if (scatter.event == PT_ABSORBED || path.segment == max_depth - 1)
        return;
    path.attenuation = spec_mul(path.attenuation, scatter.attenuation);
    path.ray.origin = scatter.origin;
    path.ray.direction = scatter.direction;
    path.segment++;
    /* The compaction. The compiler makes this one atomicAdd per warp (CUDA 13's SASS for sm_90:
     * VOTEU.ANY, POPC, one ATOMG, SHFL): the lanes here count themselves, one adds the count,
     * each takes the base plus its rank among them, the prefix sum of seed 002's compaction. */
    int next_slot = atomicAdd(&counters->count[1 - input], 1);
    store_path(next_paths, next_slot, path);
}
