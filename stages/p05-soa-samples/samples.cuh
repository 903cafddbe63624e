/* What a path has brought back so far: a struct, stored as a structure of arrays (an array per
 * field). */

struct sample {
    struct spec_vec3 colour;      /* what the path has brought back */
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

struct sample_arrays {
    struct spec_vec3 *colour, *attenuation;
};

__device__ static struct sample load_sample(struct sample_arrays samples, int p)
{
    struct sample sample;
    sample.colour = samples.colour[p];
    sample.attenuation = samples.attenuation[p];
    return sample;
}

__device__ static void store_sample(struct sample_arrays samples, int p, struct sample sample)
{
    samples.colour[p] = sample.colour;
    samples.attenuation[p] = sample.attenuation;
}
