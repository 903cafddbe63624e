/* A path in flight, a stream of paths (an array per field) and the hits of a stream's paths. */

struct ray {
    struct spec_vec3 origin, direction;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

/* A path in flight. In p07 a thread's index was its pixel, and the frame and the segment were
 * the launch's; a stream mixes pixels, samples and depths, so each path carries its own. Its
 * colour is never stored: the path adds it to the sums when it ends. */
struct path {
    unsigned pixel, frame;
    int segment;
    struct ray ray;
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

/* A stream of paths, one array per field as in p07: slots 0 to its count - 1 hold paths. */
struct path_stream {
    struct spec_vec3 *origin, *direction, *attenuation;
    unsigned *pixel, *frame;
    int *segment;
};

/* The hits of the input stream's paths, slot by slot. */
struct hit_arrays {
    float *t;
    int *sphere;
};

__device__ static struct ray load_ray(struct path_stream paths, int slot)
{
    struct ray ray;
    ray.origin = paths.origin[slot];
    ray.direction = paths.direction[slot];
    return ray;
}

__device__ static struct path load_path(struct path_stream paths, int slot)
{
    struct path path;
    path.pixel = paths.pixel[slot];
    path.frame = paths.frame[slot];
    path.segment = paths.segment[slot];
    path.ray = load_ray(paths, slot);
    path.attenuation = paths.attenuation[slot];
    return path;
}

__device__ static void store_path(struct path_stream paths, int slot, struct path path)
{
    paths.pixel[slot] = path.pixel;
    paths.frame[slot] = path.frame;
    paths.segment[slot] = path.segment;
    paths.origin[slot] = path.ray.origin;
    paths.direction[slot] = path.ray.direction;
    paths.attenuation[slot] = path.attenuation;
}
