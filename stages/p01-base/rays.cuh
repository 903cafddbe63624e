/* A path's ray and what it hit: structs, stored as arrays of structs (an element per pixel). */

struct ray {
    struct spec_vec3 origin, direction;
    int done;
};

struct hit {
    float t;
    int sphere; /* -1: nothing hit */
};
