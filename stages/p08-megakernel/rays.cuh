/* A path's ray and what it hit: structs that stay in registers. */

struct ray {
    struct spec_vec3 origin, direction;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};
