/* The way out of a walk whose stack is full: the loop over every sphere, from its best hit. */

/* The walk's stack: a depth-first walk holds at most one pending child a level, plus one. A
 * clustered tree has no depth bound (a chain of ever larger spheres can make it as deep as the
 * sphere count); a deeper one is walked as far as the stack allows, then finished by the loop
 * over every sphere. */
#ifndef TREE_STACK
#define TREE_STACK 64
#endif

/* What the walk would find, from where a walk whose stack is full stopped (its best so far):
 * the loop over every sphere in file order, which meets ties in index order. Not inlined: it is
 * rarely called, and the walk keeps its registers. */
__device__ __noinline__ static struct hit every_sphere(struct ray ray,
                                                       const struct scene_on_gpu *scene,
                                                       struct hit hit)
{
    for (int s = 0; s < scene->sphere_count; ++s) {
        float t = pt_sphere_hit(scene->spheres[s], ray.origin, ray.direction);
        if (t < hit.t || (t == hit.t && hit.sphere >= 0 && s < hit.sphere)) {
            hit.t = t;
            hit.sphere = s;
        }
    }
    return hit;
}
