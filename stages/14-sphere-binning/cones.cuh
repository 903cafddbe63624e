/* The geometry of the bins: the tiles and the light cells, the margins by which a bin errs towards
 * keeping a sphere, and the cone test that decides whether a bundle of rays (a tile's primary
 * rays, a light cell's shadow rays) can meet a sphere. */
#define TILE_SIZE 32   /* primary rays are binned per tile of TILE_SIZE x TILE_SIZE pixels */
#define LIGHT_CELLS 64 /* each face of the light buffer: LIGHT_CELLS x LIGHT_CELLS cells */
/* The bins keep a sphere whose angular distance from a bin's cone is under these margins
 * (radians), and grow each radius by 1% (stage 14's README: why the image cannot change). */
#define PRIMARY_MARGIN 1e-3f
/* The widest tile whose four corners bound its rays (radians, under a right angle). */
#define WIDEST_CORNER_SPREAD 1.5f
#define PI_RADIANS 3.14159274f
#define SHADOW_MARGIN 1e-2f
/* A shadow ray of a reflection starts and ends 0.001 along the normal: its line passes within
 * 0.002 of the light. */
#define LIGHT_OFFSET 0.004f
/* The rounded test can report a sphere that a ray's line misses by up to about 1e-3 of the
 * distance from the ray's origin to the sphere (common/raytrace/spec_bvh.h derives the bound), an
 * angle at the light past SHADOW_MARGIN when the origin is far and the sphere near the light
 * (tools/difftest.sh, seed 60). So each radius grows by SHADOW_REACH times the farthest a ray that
 * uses the cells can start from the sphere: a ray whose origin lies within shadow_near of the light
 * (scene_shadow_near) uses them, one that starts farther tests every sphere. */
#define SHADOW_REACH SPEC_BVH_REACH

__device__ inline float3 unit3(float3 v)
{
    return scale3(1.0f / sqrtf(dot3(v, v)), v);
}

__device__ inline float angle_between_units(float3 a, float3 b)
{
    return acosf(fminf(fmaxf(dot3(a, b), -1.0f), 1.0f));
}

/* Can a ray from within extra_radius of apex, in a direction within spread radians of the unit
 * vector axis, meet sphere s? With both_ways, a line (a ray either way) is asked about. Errs
 * towards yes: the margin, the radius grown by 1%, and yes on NaN. */
__device__ bool cone_may_hit(float3 apex, float extra_radius, float3 axis, float spread,
                             bool both_ways, float margin, int s)
{
    const float3 to_centre = sub3(constant_spheres[s].center, apex);
    const float distance = sqrtf(dot3(to_centre, to_centre));
    const float radius = 1.01f * constant_spheres[s].radius + extra_radius;
    if (!(distance > radius)) {
        return true;
    }
    float cosine = dot3(axis, to_centre) / distance;
    if (both_ways) {
        cosine = fabsf(cosine);
    }
    const float separation = acosf(fminf(cosine, 1.0f));
    return !(separation > spread + asinf(radius / distance) + margin);
}
