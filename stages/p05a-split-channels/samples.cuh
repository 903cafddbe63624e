/* What a path has brought back so far: a struct, stored as a float array per channel of each
 * field. */

struct sample {
    struct spec_vec3 colour;      /* what the path has brought back */
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};

struct sample_arrays {
    float *colour[3], *attenuation[3]; /* red, green, blue */
};

__device__ static struct sample load_sample(struct sample_arrays samples, int p)
{
    struct sample sample;
    sample.colour = spec_v3(samples.colour[0][p], samples.colour[1][p], samples.colour[2][p]);
    sample.attenuation = spec_v3(samples.attenuation[0][p], samples.attenuation[1][p],
                                 samples.attenuation[2][p]);
    return sample;
}

__device__ static void store_sample(struct sample_arrays samples, int p, struct sample sample)
{
    samples.colour[0][p] = sample.colour.x;
    samples.colour[1][p] = sample.colour.y;
    samples.colour[2][p] = sample.colour.z;
    samples.attenuation[0][p] = sample.attenuation.x;
    samples.attenuation[1][p] = sample.attenuation.y;
    samples.attenuation[2][p] = sample.attenuation.z;
}
