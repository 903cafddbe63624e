/* Packets: a block's rays of one kind bounded together (origins in a ball, directions in a cone),
 * the test whether some ray of a packet can meet a sphere, the list of the spheres that pass it
 * (built by a warp), and the block-wide reductions that bound the secondary rays. */

/* Every origin within origin_radius of origin_centre, every direction within spread radians of
 * axis (a unit vector). */
struct Packet {
    float3 origin_centre;
    float origin_radius;
    float3 axis;
    float spread;
};

/* Whether some ray of the packet can meet the sphere. A ray from o hitting sphere (c, r) puts c
 * within r of it, so the parallel ray from origin_centre passes within r + origin_radius of c:
 * angle(c - origin_centre, d) <= asin((r + origin_radius) / |c - origin_centre|), and by the
 * triangle inequality on angles, angle(c - origin_centre, axis) is at most that plus spread.
 * Every doubt, a NaN included, answers yes. */
__device__ bool packet_may_hit(const Packet *packet, float3 centre, float radius)
{
    const float3 w = sub3(centre, packet->origin_centre);
    const float distance = sqrtf(dot3(w, w));
    const float reach = (radius + packet->origin_radius) * (1.0f + CULL_DISTANCE_MARGIN) +
                        CULL_DISTANCE_MARGIN * distance;
    if (!(distance > reach)) {
        return true; /* the sphere reaches the origins' ball (or a value is NaN) */
    }
    const float cosine = dot3(w, packet->axis) / distance;
    if (isnan(cosine)) {
        return true;
    }
    const float angle = acosf(fminf(fmaxf(cosine, -1.0f), 1.0f));
    return !(angle > packet->spread + asinf(reach / distance) + CULL_ANGLE_MARGIN);
}

/* Run by the lanes of warp 0 (lanes of them): writes to list, in ascending order, the spheres the
 * packet may hit, 32 at a time (a ballot gives each kept sphere its place); returns the count. */
__device__ int build_list(const Packet *packet, int sphere_count, unsigned short *list, int lanes)
{
    const unsigned lane = threadIdx.y * blockDim.x + threadIdx.x;
    const unsigned lane_mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    int written = 0;
    for (int base = 0; base < sphere_count; base += lanes) {
        const int s = base + (int)lane;
        const bool keep = s < sphere_count && packet_may_hit(packet, constant_spheres[s].center,
                                                             constant_spheres[s].radius);
        const unsigned kept = __ballot_sync(lane_mask, keep);
        if (keep) {
            list[written + __popc(kept & ((1u << lane) - 1u))] = (unsigned short)s;
        }
        written += __popc(kept);
    }
    return written;
}

/* Floats as ints that order the same way (for min and max with integer reductions and atomics). */
__device__ inline int ordered_int(float value)
{
    const int bits = __float_as_int(value);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

__device__ inline float ordered_float(int ordered)
{
    return __int_as_float(ordered >= 0 ? ordered : ordered ^ 0x7fffffff);
}

/* Each folds a value into *target over the whole block: first within the warp, where the GPU
 * has integer warp reductions (compute capability 8.0 and up), then one shared-memory atomic
 * per warp; on older GPUs, one atomic per thread. */
__device__ inline void block_min(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_min_sync(warp_mask, value);
    if (warp_leader) {
        atomicMin(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicMin(target, value);
#endif
}

__device__ inline void block_max(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_max_sync(warp_mask, value);
    if (warp_leader) {
        atomicMax(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicMax(target, value);
#endif
}

__device__ inline void block_add(int *target, int value, unsigned warp_mask, bool warp_leader)
{
#if __CUDA_ARCH__ >= 800
    value = __reduce_add_sync(warp_mask, value);
    if (warp_leader) {
        atomicAdd(target, value);
    }
#else
    (void)warp_mask;
    (void)warp_leader;
    atomicAdd(target, value);
#endif
}

/* Directions are summed for the axis in fixed point (any axis is correct: the spread is measured
 * from the one chosen), so that integer warp reductions and atomics can do it. */
#define AXIS_FIXED_POINT 65536.0f

/* The primary rays of the block: from the camera through the corners of its pixel rectangle. */
__device__ Packet primary_packet(float3 origin, int width, int height, int first_row, int end_row)
{
    const int i0 = blockIdx.x * blockDim.x;
    const int i1 = min(i0 + (int)blockDim.x, width) - 1;
    const int j0 = first_row + blockIdx.y * blockDim.y;
    const int j1 = min(j0 + (int)blockDim.y, end_row) - 1;
    float3 corners[4];
    for (int c = 0; c < 4; c++) {
        const int i = c & 1 ? i1 : i0;
        const int j = c & 2 ? j1 : j0;
        const float x = 2.0f * ((float)i + 0.5f) / (float)(width - 1) - 1.0f;
        const float y = 1.0f - 2.0f * ((float)j + 0.5f) / (float)(height - 1);
        corners[c] = normalize3(sub3(make_float3(x, y, -1.0f), origin));
    }
    Packet packet;
    packet.origin_centre = origin;
    packet.origin_radius = 0.0f;
    packet.axis = normalize3(add3(add3(corners[0], corners[1]), add3(corners[2], corners[3])));
    float smallest_cosine = 1.0f;
    for (int c = 0; c < 4; c++) {
        smallest_cosine = fminf(smallest_cosine, dot3(packet.axis, corners[c]));
    }
    packet.spread = acosf(fmaxf(smallest_cosine, -1.0f));
    /* Past a right angle the four corners no longer bound the block's rays: the directions within
     * spread of the axis are no longer a convex cone (a camera a hair from the image plane:
     * tools/difftest.sh, seed 13). Such a block keeps every sphere. */
    if (!(packet.spread < WIDEST_CORNER_SPREAD)) {
        packet.spread = PI_RADIANS;
    }
    return packet;
}
