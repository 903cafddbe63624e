/* The persistent kernel: threads that stay resident for the whole render and take their paths
 * from a global counter. */

/* The Morton code: 10 bits an axis, interleaved into 30; an ended path's key is above them all,
 * so the sort looks at 31 bits. */
#define MORTON_AXIS_BITS 10
#define MORTON_CELLS (1 << MORTON_AXIS_BITS) /* along each axis of the box */
#define MORTON_ENDED (1u << (3 * MORTON_AXIS_BITS))
#define SORT_BITS (3 * MORTON_AXIS_BITS + 1)
/* The box the origins are quantised in holds the camera and every sphere of at most this radius
 * (a ground or a dome much larger than the rest would squeeze the scene into a few cells)... */
#define MORTON_SMALL_RADIUS 10.0f
/* ... grown by this much each way, so that it reaches a ground a little below the spheres
 * (the benchmark's is 1.5 below the lowest row). Origins outside it go to its nearest face. */
#define MORTON_BOX_MARGIN 2.0f

/* Where the origins are quantised: the box's low corner and its cells per unit along each axis. */
struct morton_box {
    struct spec_vec3 low, cells_per_unit;
};

/* The 10 low bits of v spread to every third bit of 30 (bit k to bit 3k): each multiply copies
 * the bits to a shifted place, each mask keeps the copies that land where they belong. */
__device__ static unsigned spread_bits(unsigned v)
{
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}

/* The cell along one axis, 0 to MORTON_CELLS - 1; outside the box, the nearest end. */
__device__ static unsigned morton_cell(float x, float low, float cells_per_unit)
{
    float cell = (x - low) * cells_per_unit;
    return (unsigned)fminf(fmaxf(cell, 0.0f), (float)(MORTON_CELLS - 1));
}

/* The Z-order code of a point: its three cells' bits interleaved, x highest. Near points have
 * near codes, mostly: the curve visits each octant of the box, then each of its octants... */
__device__ static unsigned morton_code(struct spec_vec3 point, struct morton_box box)
{
    unsigned x = morton_cell(point.x, box.low.x, box.cells_per_unit.x);
    unsigned y = morton_cell(point.y, box.low.y, box.cells_per_unit.y);
    unsigned z = morton_cell(point.z, box.low.z, box.cells_per_unit.z);
    return spread_bits(x) << 2 | spread_bits(y) << 1 | spread_bits(z);
}

/* One key (the code) and one value (the slot the path is in) a thread, sorted across the block. */
typedef cub::BlockRadixSort<unsigned, BLOCK_THREADS, 1, int> block_radix_sort;

/* What the block shares, on chip for the whole render: the sort's scratch space and the slots
 * the paths move through are never needed at once, so they share their bytes. */
struct block_sorting {
    union {
        block_radix_sort::TempStorage sort;
        struct path_slots slots;
    } space;
    unsigned long long first_new_path; /* the first of the paths the free slots take */
};

/* The block loops over three steps: sort its paths, the live ones first by their origin's code,
 * fill the free slots with new paths, extend every path by one segment. It leaves, all threads
 * at once, when it has no live path and the counter has passed the last path. */
__global__ void persistent_kernel(unsigned long long *sums, unsigned long long *next_path,
                                  struct spec_vec3 camera, struct spec_vec3 sky,
                                  struct morton_box box, int sphere_count, int width, int height,
                                  int samples, int max_depth)
{
    __shared__ struct block_sorting shared;
    unsigned long long total = (unsigned long long)width * (unsigned long long)height *
                               (unsigned long long)samples;
    struct path path;
    int active = 0;
    int queue_empty = 0; /* thread 0's: the counter has passed the last path */
    for (;;) {
        /* Sorting: after it, thread t holds the t-th smallest key and the slot its path is in;
         * the live paths' keys come first. */
        unsigned key[1] = {active ? morton_code(path.ray.origin, box) : MORTON_ENDED};
        int from[1] = {(int)threadIdx.x};
        block_radix_sort(shared.space.sort).Sort(key, from, 0, SORT_BITS);
        int live = __syncthreads_count(active); /* a barrier too: the sort's space is free */
        if (active)
            stage_path(&shared.space.slots, (int)threadIdx.x, path);
        /* Regeneration: one atomic add takes a path for each of the free slots. */
        if (threadIdx.x == 0) {
            int free_slots = BLOCK_THREADS - live;
            unsigned long long first = total; /* none taken */
            if (free_slots > 0 && !queue_empty) {
                first = atomicAdd(next_path, (unsigned long long)free_slots);
                queue_empty = first + (unsigned long long)free_slots >= total;
            }
            shared.first_new_path = first;
        }
        __syncthreads(); /* the paths staged, the first new path known */
        unsigned long long first_new_path = shared.first_new_path;
        if (live == 0 && first_new_path >= total)
            return; /* the same values in every thread: the whole block leaves */
        int t = (int)threadIdx.x;
        if (t < live) {
            path = unstage_path(&shared.space.slots, from[0]);
            active = 1;
        } else {
            unsigned long long q = first_new_path + (unsigned long long)(t - live);
            active = q < total;
            if (active)
                path = start_path(q, width, height, camera);
        }
        __syncthreads(); /* every path read from the slots before the next sort writes there */
        if (active)
            active = extend_path(&path, sums, sky, sphere_count, max_depth);
    }
}
