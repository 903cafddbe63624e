/* The block's paths on their way to their new slots: one array per field, so that the 32 lanes
 * of a warp storing one field touch 32 different banks (whole structs, 12 words apart, would put
 * 4 lanes on each of 8 banks). */
struct path_slots {
    unsigned pixel[BLOCK_THREADS], frame[BLOCK_THREADS];
    int segment[BLOCK_THREADS];
    struct spec_vec3 origin[BLOCK_THREADS], direction[BLOCK_THREADS];
    struct spec_vec3 attenuation[BLOCK_THREADS];
};

__device__ static void stage_path(struct path_slots *slots, int slot, struct path path)
{
    slots->pixel[slot] = path.pixel;
    slots->frame[slot] = path.frame;
    slots->segment[slot] = path.segment;
    slots->origin[slot] = path.ray.origin;
    slots->direction[slot] = path.ray.direction;
    slots->attenuation[slot] = path.attenuation;
}

__device__ static struct path unstage_path(const struct path_slots *slots, int slot)
{
    struct path path;
    path.pixel = slots->pixel[slot];
    path.frame = slots->frame[slot];
    path.segment = slots->segment[slot];
    path.ray.origin = slots->origin[slot];
    path.ray.direction = slots->direction[slot];
    path.attenuation = slots->attenuation[slot];
    return path;
}
