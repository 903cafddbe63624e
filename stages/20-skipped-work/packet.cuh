/* Warp packets: the reflection rays of a warp bounded together as they run. */
/* The rays of the lanes that call warp_packet together: every origin within radius of apex,
 * every direction within an angle of the (nearly) unit vector axis whose cosine and sine are
 * given, the margin included. The lanes (a mask) share the work of binning: the lane of rank r
 * asks about spheres r, r + lane_count, ... of each word. */
struct Packet {
    float3 apex, axis;
    float radius, cos_spread, sin_spread;
    unsigned int lanes;
    int rank, lane_count;
};

/* The margin of a reflection packet, 0.01 radians, as its cosine and sine. */
#define COS_MARGIN 0.99995000f
#define SIN_MARGIN 0.00999983f

/* Non-negative floats order like their bits read as unsigned integers, so an integer maximum
 * over the warp is a float maximum (a NaN, whose bits are above every finite float, wins, and
 * then every sphere is kept). Before compute capability 8.0 (no __reduce_max_sync) each lane is
 * its own packet. rsqrtf is the hardware's approximate 1/sqrt: close enough for a bound that
 * carries a margin of 0.01 radians. */
__device__ Packet warp_packet(float3 origin, float3 direction)
{
    Packet packet;
    float reach_squared = 0.0f, turn = 0.0f;
#if __CUDA_ARCH__ >= 800
    const unsigned int lanes = __activemask();
    const int leader = __ffs(lanes) - 1;
    const int lane = (threadIdx.y * blockDim.x + threadIdx.x) % 32;
    packet.apex = make_float3(__shfl_sync(lanes, origin.x, leader),
                              __shfl_sync(lanes, origin.y, leader),
                              __shfl_sync(lanes, origin.z, leader));
    const float3 leader_direction = make_float3(__shfl_sync(lanes, direction.x, leader),
                                                __shfl_sync(lanes, direction.y, leader),
                                                __shfl_sync(lanes, direction.z, leader));
    packet.axis = scale3(rsqrtf(dot3(leader_direction, leader_direction)), leader_direction);
    const float3 offset = sub3(origin, packet.apex);
    /* 1 - cos of the angle to the axis: zero or above (a hair below 0 is rounding). */
    turn = fmaxf(1.0f - dot3(direction, packet.axis) * rsqrtf(dot3(direction, direction)), 0.0f);
    reach_squared = __uint_as_float(__reduce_max_sync(lanes, __float_as_uint(dot3(offset, offset))));
    turn = __uint_as_float(__reduce_max_sync(lanes, __float_as_uint(turn)));
    packet.lanes = lanes;
    packet.rank = __popc(lanes & ((1u << lane) - 1));
    packet.lane_count = __popc(lanes);
#else
    packet.apex = origin;
    packet.axis = scale3(rsqrtf(dot3(direction, direction)), direction);
    packet.lanes = 0;
    packet.rank = 0;
    packet.lane_count = 1;
#endif
    /* Square roots from rsqrtf, rounded up by 0.01%: a bound may be a little wide, not narrow. */
    reach_squared = fmaxf(reach_squared, 1e-30f);
    packet.radius = 1.0001f * reach_squared * rsqrtf(reach_squared);
    /* The widest angle plus the margin, as cos(a + m) = cos a cos m - sin a sin m. */
    const float cos_widest = 1.0f - turn;
    const float sine_squared = fmaxf(1.0f - cos_widest * cos_widest, 1e-30f);
    const float sin_widest = 1.0001f * sine_squared * rsqrtf(sine_squared);
    packet.cos_spread = cos_widest * COS_MARGIN - sin_widest * SIN_MARGIN;
    packet.sin_spread = sin_widest * COS_MARGIN + cos_widest * SIN_MARGIN;
    return packet;
}
