/* What a path has brought back so far: a struct, stored as an array of structs. */

struct sample {
    struct spec_vec3 colour;      /* what the path has brought back */
    struct spec_vec3 attenuation; /* the product of the attenuations so far */
};
