/* A path's ray and what it hit: structs, stored as structures of arrays (an array per field). */

struct ray {
    struct spec_vec3 origin, direction;
    int done;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};

/* Where rays and hits live: one array per field. */
struct ray_arrays {
    struct spec_vec3 *origin, *direction;
    int *done;
};

struct hit_arrays {
    float *t;
    int *sphere;
};

__device__ static struct ray load_ray(struct ray_arrays rays, int p)
{
    struct ray ray;
    ray.origin = rays.origin[p];
    ray.direction = rays.direction[p];
    ray.done = rays.done[p];
    return ray;
}

__device__ static void store_ray(struct ray_arrays rays, int p, struct ray ray)
{
    rays.origin[p] = ray.origin;
    rays.direction[p] = ray.direction;
    rays.done[p] = ray.done;
}
