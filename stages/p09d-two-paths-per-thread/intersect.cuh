/* A thread carries PATHS_PER_THREAD paths at once, and finds their hits together. */

#define PATHS_PER_THREAD 2

/* The closest hits of all the thread's paths in one loop over the spheres: each sphere is read
 * once and tested against every ray, and the tests of different rays do not depend on each
 * other, so the compiler interleaves them (the loops over k are unrolled: the paths and hits
 * stay in registers). Each ray still meets the spheres in file order and keeps only strictly
 * nearer hits: the same hit as p09's closest_hit. */
__device__ static void closest_hits(const struct path *paths, int sphere_count, struct hit *hits)
{
#pragma unroll
    for (int k = 0; k < PATHS_PER_THREAD; ++k) {
        hits[k].t = PT_T_FAR;
        hits[k].sphere = -1;
    }
    for (int s = 0; s < sphere_count; ++s) {
        struct pt_sphere sphere = c_spheres[s];
#pragma unroll
        for (int k = 0; k < PATHS_PER_THREAD; ++k) {
            float t = pt_sphere_hit(sphere, paths[k].ray.origin, paths[k].ray.direction);
            if (t < hits[k].t) {
                hits[k].t = t;
                hits[k].sphere = s;
            }
        }
    }
}
