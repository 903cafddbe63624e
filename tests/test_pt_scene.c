/* The path-tracing scene parser (SPEC-PATH-TRACING.md section 1): the committed scenes load
 * with the values in their files, every material parses, and every kind of bad file gets a message
 * naming file, line and what is wrong. It shares its lexical layer (common/runtime/scene_text.c)
 * with the main chain's parser, and neither takes the other's scenes. */
#include "test_support.h"

#include "pathtrace/pt_scene.h"
#include "raytrace/scene.h"

/* Five lines: a sphere after it is on line 6. */
#define PT_HEADER "size 64 48\ncamera 0 0 1\nsky 0.2 0.3 0.6\nsamples 4\nmax_depth 8\n"
#define GOOD_SPHERE "sphere 1 0 0 -3 diffuse 0.5 0.5 0.5\n"
#define MAIN_CHAIN_HINT                                                                           \
    " (a main-chain keyword, SPEC.md: path-tracing scenes have size, camera, sky, samples, "      \
    "max_depth and sphere, SPEC-PATH-TRACING.md)"

static int parse(const char *text, struct pt_scene *scene, char *error)
{
    return pt_scene_parse(text, strlen(text), "t.scene", scene, error, SCENE_ERROR_BYTES);
}

/* The kinds of pt-benchmark.scene's 21 spheres, in file order. */
static const int benchmark_kinds[21] = {
    PT_DIFFUSE, PT_DIFFUSE, PT_METAL,   PT_DIFFUSE, PT_GLASS,   PT_DIFFUSE, PT_MIRROR,
    PT_DIFFUSE, PT_GLASS,   PT_DIFFUSE, PT_MIRROR,  PT_DIFFUSE, PT_METAL,   PT_DIFFUSE,
    PT_DIFFUSE, PT_METAL,   PT_GLASS,   PT_DIFFUSE, PT_MIRROR,  PT_LIGHT,   PT_LIGHT,
};

static void check_benchmark_spheres(const struct pt_scene *s)
{
    assert_int_equal(s->sphere_count, 21);
    assert_non_null(s->spheres);
    assert_non_null(s->materials);
    assert_true(vec3_is(s->camera, 0, 0, 1));
    assert_true(vec3_is(s->sky, 0.22f, 0.37f, 0.6f));
    assert_int_equal(s->max_depth, 8);
    for (int k = 0; k < 21; ++k) {
        assert_int_equal(s->materials[k].kind, benchmark_kinds[k]);
        if (s->materials[k].kind != PT_METAL && s->materials[k].kind != PT_GLASS)
            assert_true(s->materials[k].parameter == 0.0f);
    }
    /* The ground, and the study's rows at their places. */
    assert_true(s->spheres[0].radius == 1000 && vec3_is(s->spheres[0].centre, 0, -1002, 0));
    assert_true(vec3_is(s->materials[0].colour, 0.5f, 0.5f, 0.5f));
    assert_true(s->spheres[1].radius == 0.25f && vec3_is(s->spheres[1].centre, -1.5f, -0.25f, -4));
    assert_true(vec3_is(s->materials[2].colour, 1, 0.5f, 0) && s->materials[2].parameter == 0.3f);
    assert_true(vec3_is(s->materials[4].colour, 1, 1, 1) && s->materials[4].parameter == 1.5f);
    assert_true(vec3_is(s->materials[6].colour, 0.8f, 0.8f, 1));
    assert_true(vec3_is(s->spheres[8].centre, -1.25f, 0.25f, -3));
    assert_true(vec3_is(s->materials[8].colour, 1, 0.8f, 0.9f) && s->materials[8].parameter == 1.5f);
    assert_true(s->materials[12].parameter == 0.1f && s->materials[15].parameter == 0.6f);
    assert_true(vec3_is(s->materials[16].colour, 0.9f, 0.8f, 1) && s->materials[16].parameter == 1.33f);
    assert_true(vec3_is(s->spheres[18].centre, 1, 0.75f, -2));
    /* The lamps: radius 0.3, emitting (6, 6, 5) and (5, 5, 6). */
    assert_true(s->spheres[19].radius == 0.3f && vec3_is(s->spheres[19].centre, -0.8f, 1.6f, -3.5f));
    assert_true(vec3_is(s->materials[19].colour, 6, 6, 5));
    assert_true(s->spheres[20].radius == 0.3f && vec3_is(s->spheres[20].centre, 0.9f, 1.5f, -2.5f));
    assert_true(vec3_is(s->materials[20].colour, 5, 5, 6));
}

static void benchmark_scene_is_the_spec(void **state)
{
    (void)state;
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    int loaded = pt_scene_load("scenes/pt-benchmark.scene", &s, error, sizeof error);
    if (loaded)
        fail_msg("%s", error);
    assert_int_equal(s.width, 1024);
    assert_int_equal(s.height, 1024);
    assert_int_equal(s.samples, 2);
    check_benchmark_spheres(&s);
    pt_scene_free(&s);
    assert_null(s.spheres);
    assert_null(s.materials);
    assert_int_equal(s.sphere_count, 0);
}

/* pt-quick.scene is the benchmark at 128x128 with 8 samples, sphere for sphere. */
static void quick_scene_is_the_benchmark_smaller(void **state)
{
    (void)state;
    struct pt_scene quick, benchmark;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(pt_scene_load("scenes/pt-quick.scene", &quick, error, sizeof error), 0);
    assert_int_equal(pt_scene_load("scenes/pt-benchmark.scene", &benchmark, error, sizeof error), 0);
    assert_int_equal(quick.width, 128);
    assert_int_equal(quick.height, 128);
    assert_int_equal(quick.samples, 8);
    check_benchmark_spheres(&quick);
    assert_memory_equal(quick.spheres, benchmark.spheres, 21 * sizeof *quick.spheres);
    assert_memory_equal(quick.materials, benchmark.materials, 21 * sizeof *quick.materials);
    pt_scene_free(&quick);
    pt_scene_free(&benchmark);
}

static void world_is_the_scene_at_the_size_given(void **state)
{
    (void)state;
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(pt_scene_load("scenes/pt-quick.scene", &s, error, sizeof error), 0);
    struct pt_world world = pt_scene_world(&s, 64, 32);
    assert_ptr_equal(world.spheres, s.spheres);
    assert_ptr_equal(world.materials, s.materials);
    assert_int_equal(world.sphere_count, 21);
    assert_int_equal(world.width, 64);
    assert_int_equal(world.height, 32);
    assert_int_equal(world.max_depth, 8);
    assert_true(vec3_is(world.camera, 0, 0, 1) && vec3_is(world.sky, 0.22f, 0.37f, 0.6f));
    pt_scene_free(&s);
}

static void every_material_parses(void **state)
{
    (void)state;
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES] = "";
    const char *text = PT_HEADER
        "sphere 1 0 0 -3 diffuse 0.1 0.2 0.3\n"
        "sphere 2 1 0 -3 mirror 0.4 0.5 0.6\n"
        "sphere 3 2 0 -3 metal 0.7 0.8 0.9 0.25\n"
        "sphere 4 3 0 -3 glass 1 0.9 0.8 1.5\n"
        "sphere 5 4 0 -3 light 10000 0 0.5\n"
        "sphere 6 5 0 -3 metal 0 0 0 0\n"      /* the ends of every range */
        "sphere 7 6 0 -3 glass 0 0 1 4\n"
        "sphere 8 7 0 -3 glass 0 0 1 1\n";
    if (parse(text, &s, error))
        fail_msg("%s", error);
    assert_int_equal(s.width, 64);
    assert_int_equal(s.height, 48);
    assert_int_equal(s.samples, 4);
    assert_int_equal(s.max_depth, 8);
    assert_true(vec3_is(s.sky, 0.2f, 0.3f, 0.6f));
    assert_int_equal(s.sphere_count, 8);
    const struct pt_material want[8] = {
        {PT_DIFFUSE, {0.1f, 0.2f, 0.3f}, 0},   {PT_MIRROR, {0.4f, 0.5f, 0.6f}, 0},
        {PT_METAL, {0.7f, 0.8f, 0.9f}, 0.25f}, {PT_GLASS, {1, 0.9f, 0.8f}, 1.5f},
        {PT_LIGHT, {10000, 0, 0.5f}, 0},       {PT_METAL, {0, 0, 0}, 0},
        {PT_GLASS, {0, 0, 1}, 4},              {PT_GLASS, {0, 0, 1}, 1},
    };
    for (int k = 0; k < 8; ++k) {
        assert_true(s.spheres[k].radius == (float)(k + 1));
        assert_true(vec3_is(s.spheres[k].centre, (float)k, 0, -3));
        assert_int_equal(s.materials[k].kind, want[k].kind);
        assert_true(vec3_is(s.materials[k].colour, want[k].colour.x, want[k].colour.y,
                            want[k].colour.z));
        assert_true(s.materials[k].parameter == want[k].parameter);
    }
    pt_scene_free(&s);
}

static void material_names(void **state)
{
    (void)state;
    assert_string_equal(pt_material_name(PT_DIFFUSE), "diffuse");
    assert_string_equal(pt_material_name(PT_MIRROR), "mirror");
    assert_string_equal(pt_material_name(PT_METAL), "metal");
    assert_string_equal(pt_material_name(PT_GLASS), "glass");
    assert_string_equal(pt_material_name(PT_LIGHT), "light");
    assert_string_equal(pt_material_name(PT_MATERIAL_KINDS), "unknown");
    assert_string_equal(pt_material_name(-1), "unknown");
}

/* The scene-file rules of SPEC.md section 1 hold here too: comments, blank lines, CRLF, tabs. */
static void comments_blank_lines_and_crlf_are_accepted(void **state)
{
    (void)state;
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    const char *text = "# a comment\r\n\r\n   \t\n"
                       "size 64 48\r\ncamera 0 0 1\r\nsky 0 0 0 # black\r\nsamples\t16\r\n"
                       "max_depth 64\r\nsphere 0.5 0 0 -3\tlight 1 1 1   # trailing comment\r\n";
    if (parse(text, &s, error))
        fail_msg("%s", error);
    assert_int_equal(s.samples, 16);
    assert_int_equal(s.max_depth, 64);
    assert_int_equal(s.sphere_count, 1);
    assert_int_equal(s.materials[0].kind, PT_LIGHT);
    assert_true(s.spheres[0].radius == 0.5f && s.spheres[0].centre.z == -3.0f);
    pt_scene_free(&s);
}

struct bad_case {
    const char *text;
    const char *message; /* the whole message */
};

static const struct bad_case bad_cases[] = {
    /* Materials */
    {PT_HEADER "sphere 1 0 0 -3 plastic 1 0 0\n",
     "t.scene:6: 'sphere': unknown material 'plastic' (diffuse, mirror, metal, glass or light)"},
    {PT_HEADER "sphere 1 0 0 -3 1 0 0\n", /* a main-chain sphere */
     "t.scene:6: 'sphere': unknown material '1' (diffuse, mirror, metal, glass or light)"},
    {PT_HEADER "sphere 1 0 0 -3\n",
     "t.scene:6: 'sphere' needs at least 5 values (radius cx cy cz MATERIAL values), got 4"},
    {PT_HEADER "sphere 1 0 0 -3 diffuse 1 0\n",
     "t.scene:6: 'sphere': material 'diffuse' needs 3 values (r g b), got 2"},
    {PT_HEADER "sphere 1 0 0 -3 mirror 1 0 0 1\n",
     "t.scene:6: 'sphere': material 'mirror' needs 3 values (r g b), got 4"},
    {PT_HEADER "sphere 1 0 0 -3 metal 1 0 0\n",
     "t.scene:6: 'sphere': material 'metal' needs 4 values (r g b fuzz), got 3"},
    {PT_HEADER "sphere 1 0 0 -3 metal 1 0 0 0.5 0.5\n",
     "t.scene:6: 'sphere': material 'metal' needs 4 values (r g b fuzz), got 5"},
    {PT_HEADER "sphere 1 0 0 -3 glass 1 1 1\n",
     "t.scene:6: 'sphere': material 'glass' needs 4 values (r g b ior), got 3"},
    {PT_HEADER "sphere 1 0 0 -3 light 5\n",
     "t.scene:6: 'sphere': material 'light' needs 3 values (r g b), got 1"},
    {PT_HEADER "sphere 1 0 0 -3 light 6 -1 5\n",
     "t.scene:6: 'sphere': light emission -1 is out of range [0, 10000]"},
    {PT_HEADER "sphere 1 0 0 -3 light 6 6 10001\n",
     "t.scene:6: 'sphere': light emission 10001 is out of range [0, 10000]"},
    {PT_HEADER "sphere 1 0 0 -3 light 0 0 0\n",
     "t.scene:6: 'sphere': a light must emit (r g b not all 0)"},
    {PT_HEADER "sphere 1 0 0 -3 diffuse 1 2 1\n",
     "t.scene:6: 'sphere': colour channel 2 is out of range [0, 1]"},
    {PT_HEADER "sphere 1 0 0 -3 glass 1 1 -0.5 1.5\n",
     "t.scene:6: 'sphere': colour channel -0.5 is out of range [0, 1]"},
    {PT_HEADER "sphere 1 0 0 -3 glass 1 1 1 0.5\n",
     "t.scene:6: 'sphere': ior 0.5 is out of range [1, 4]"},
    {PT_HEADER "sphere 1 0 0 -3 glass 1 1 1 4.5\n",
     "t.scene:6: 'sphere': ior 4.5 is out of range [1, 4]"},
    {PT_HEADER "sphere 1 0 0 -3 metal 1 1 1 1.5\n",
     "t.scene:6: 'sphere': fuzz 1.5 is out of range [0, 1]"},
    {PT_HEADER "sphere 1 0 0 -3 metal 1 1 1 -0.1\n",
     "t.scene:6: 'sphere': fuzz -0.1 is out of range [0, 1]"},
    {PT_HEADER "sphere 1 0 0 -3 diffuse 1 one 1\n", "t.scene:6: 'sphere': 'one' is not a number"},
    /* The sphere's place */
    {PT_HEADER "sphere 0 0 0 -3 diffuse 1 1 1\n", "t.scene:6: 'sphere': radius 0 must be positive"},
    {PT_HEADER "sphere -1 0 0 -3 diffuse 1 1 1\n", "t.scene:6: 'sphere': radius -1 must be positive"},
    {PT_HEADER "sphere 1e-60 0 0 -3 diffuse 1 1 1\n",
     "t.scene:6: 'sphere': '1e-60' is too close to 0 (use 0 or a magnitude of at least 1.2e-38)"},
    {PT_HEADER "sphere 1 1e39 0 -3 diffuse 1 1 1\n",
     "t.scene:6: 'sphere': '1e39' is too large (magnitude at most 3e38)"},
    {PT_HEADER "sphere 1 0 nan -3 diffuse 1 1 1\n",
     "t.scene:6: 'sphere': 'nan' is not a finite number"},
    /* samples, max_depth */
    {"samples 0\n", "t.scene:1: 'samples': 0 is out of range (1 to 65536)"},
    {"samples 65537\n", "t.scene:1: 'samples': 65537 is out of range (1 to 65536)"},
    {"samples -4\n", "t.scene:1: 'samples': -4 is out of range (1 to 65536)"},
    {"samples 2.5\n", "t.scene:1: 'samples': 2.5 is not a whole number"},
    {"samples 1e30\n", "t.scene:1: 'samples': 1e+30 is out of range (1 to 65536)"},
    {"samples\n", "t.scene:1: 'samples' needs 1 value (n), got 0"},
    {"max_depth 1000\n", "t.scene:1: 'max_depth': 1000 is out of range (1 to 64)"},
    {"max_depth 0\n", "t.scene:1: 'max_depth': 0 is out of range (1 to 64)"},
    {"max_depth 8.5\n", "t.scene:1: 'max_depth': 8.5 is not a whole number"},
    {"max_depth 8 8\n", "t.scene:1: 'max_depth' needs 1 value (n), got 2"},
    {PT_HEADER "samples 4\n", "t.scene:6: 'samples' given twice (first on line 4)"},
    /* size, camera, sky */
    {"size 1 48\n", "t.scene:1: image size 1x48 is too small (each side at least 2)"},
    {"size 64 40000\n", "t.scene:1: image size 64x40000 is too large (each side at most 32768)"},
    {"size 64.5 48\n", "t.scene:1: 'size': 64.5 is not a whole number"},
    {"size 1e20 48\n", "t.scene:1: 'size': 1e+20 is out of range (each side 2 to 32768)"},
    {"camera 0 0\n", "t.scene:1: 'camera' needs 3 values (x y z), got 2"},
    {"sky 0 -1 0\n", "t.scene:1: 'sky': channel -1 is out of range [0, 10000]"},
    {"sky 0 0 20000\n", "t.scene:1: 'sky': channel 20000 is out of range [0, 10000]"},
    /* What is missing */
    {"size 64 48\ncamera 0 0 1\nsamples 4\nmax_depth 8\n" GOOD_SPHERE,
     "t.scene: missing 'sky r g b (0..10000)'"},
    {"size 64 48\ncamera 0 0 1\nsky 0 0 0\nmax_depth 8\n" GOOD_SPHERE, "t.scene: missing 'samples n'"},
    {"size 64 48\ncamera 0 0 1\nsky 0 0 0\nsamples 4\n" GOOD_SPHERE, "t.scene: missing 'max_depth n'"},
    {"camera 0 0 1\nsky 0 0 0\nsamples 4\nmax_depth 8\n" GOOD_SPHERE,
     "t.scene: missing 'size width height'"},
    {PT_HEADER, "t.scene: no spheres (add at least one 'sphere radius cx cy cz MATERIAL values' line)"},
    {"", "t.scene: missing 'size width height'"},
    /* Keywords */
    {PT_HEADER "background 94 156 255\n", "t.scene:6: unknown keyword 'background'" MAIN_CHAIN_HINT},
    {PT_HEADER "ambient 0.1\n", "t.scene:6: unknown keyword 'ambient'" MAIN_CHAIN_HINT},
    {PT_HEADER "light 1 1 1\n", "t.scene:6: unknown keyword 'light'" MAIN_CHAIN_HINT},
    {PT_HEADER "spheer 1 0 0 -3 diffuse 1 1 1\n", "t.scene:6: unknown keyword 'spheer'"},
    {PT_HEADER "sphere 1 0 0 -3 diffuse 1 1 1 1 1 1 1 1 1 1 1 1\n",
     "t.scene:6: too many values on one line"},
    /* The shared lexical rules */
    {"size 64\xC2\xA0" "48\n",
     "t.scene:1: unexpected character (bytes 0xC2 0xA0, a UTF-8 non-breaking space) in column 8: "
     "scene files are plain ASCII"},
    {"\xEF\xBB\xBF" PT_HEADER,
     "t.scene:1: the file starts with a UTF-8 byte-order mark (bytes 0xEF 0xBB 0xBF): save it as "
     "plain ASCII"},
    {"size 64 48\rcamera 0 0 1\r",
     "t.scene:1: a carriage return (CR) in column 11 that does not end the line: line ends must be "
     "LF or CRLF, not CR alone (old Mac line ends)"},
    {"size 64 48\nsky 0 0 0\x0c\n", "t.scene:2: unexpected character (byte 0x0c, a control byte) in column 10"},
};

static void every_bad_file_is_named_with_its_line(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        struct pt_scene s;
        char error[SCENE_ERROR_BYTES] = "";
        int result = parse(bad_cases[k].text, &s, error);
        if (result == 0 || strcmp(error, bad_cases[k].message) != 0)
            fail_msg("case %zu: got %d '%s', want '%s'", k, result, error, bad_cases[k].message);
        assert_null(strchr(error, '\n'));
        /* A failed parse owns nothing. */
        assert_null(s.spheres);
        assert_null(s.materials);
        assert_int_equal(s.sphere_count, 0);
    }
}

/* A line of 1024 characters is accepted (its CR not counted), one more refused. */
static void lines_at_the_limit(void **state)
{
    (void)state;
    static char text[4096];
    char comment[1100];
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    for (int crlf = 0; crlf < 2; crlf++) {
        for (int length = 1024; length <= 1025; length++) {
            memset(comment, '#', (size_t)length);
            comment[length] = '\0';
            snprintf(text, sizeof text, "%s%s\n" PT_HEADER GOOD_SPHERE, comment, crlf ? "\r" : "");
            int status = parse(text, &s, error);
            if (length == 1024) {
                if (status != 0)
                    fail_msg("a %s line of 1024 characters was refused: %s", crlf ? "CRLF" : "LF",
                             error);
                pt_scene_free(&s);
            } else {
                assert_int_equal(status, -1);
                assert_string_equal(error, "t.scene:1: line longer than 1024 characters");
            }
        }
    }
}

/* Spheres grow one by one up to the limit, and one more is refused. */
static void a_scene_holds_at_most_max_spheres(void **state)
{
    (void)state;
    const char sphere[] = "sphere 1 0 0 -3 metal 1 1 1 0.5\n";
    size_t header = strlen(PT_HEADER), each = strlen(sphere);
    size_t length = header + (PT_SCENE_MAX_SPHERES + 1) * each;
    char *text = malloc(length + 1);
    assert_non_null(text);
    memcpy(text, PT_HEADER, header);
    for (size_t k = 0; k <= PT_SCENE_MAX_SPHERES; ++k)
        memcpy(text + header + k * each, sphere, each);
    text[length] = '\0';
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(pt_scene_parse(text, length - each, "max", &s, error, sizeof error), 0);
    assert_int_equal(s.sphere_count, PT_SCENE_MAX_SPHERES);
    assert_int_equal(s.materials[PT_SCENE_MAX_SPHERES - 1].kind, PT_METAL);
    assert_true(s.materials[PT_SCENE_MAX_SPHERES - 1].parameter == 0.5f);
    pt_scene_free(&s);
    assert_int_equal(pt_scene_parse(text, length, "max", &s, error, sizeof error), -1);
    assert_string_equal(error, "max:100006: too many spheres (a scene holds at most 100000)");
    assert_null(s.spheres);
    free(text);
}

/* Neither parser takes the other's scenes, and each says why on the first line it cannot read. */
static void the_two_formats_refuse_each_other(void **state)
{
    (void)state;
    struct pt_scene pt;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(pt_scene_load("scenes/quick.scene", &pt, error, sizeof error), -1);
    assert_string_equal(error, "scenes/quick.scene:7: unknown keyword 'background'" MAIN_CHAIN_HINT);
    assert_null(pt.spheres);
    assert_int_equal(pt_scene_load("scenes/benchmark.scene", &pt, error, sizeof error), -1);
    assert_string_equal(error, "scenes/benchmark.scene:7: unknown keyword 'background'" MAIN_CHAIN_HINT);

    struct scene main_chain;
    assert_int_equal(scene_load("scenes/pt-quick.scene", &main_chain, error, sizeof error), -1);
    assert_string_equal(error, "scenes/pt-quick.scene:8: unknown keyword 'sky'");
    assert_null(main_chain.spheres);
    assert_int_equal(scene_load("scenes/pt-benchmark.scene", &main_chain, error, sizeof error), -1);
    assert_string_equal(error, "scenes/pt-benchmark.scene:8: unknown keyword 'sky'");
}

static void a_missing_file_and_a_directory_are_named(void **state)
{
    (void)state;
    struct pt_scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(pt_scene_load("scenes/no-such.scene", &s, error, sizeof error), -1);
    assert_string_equal(error, "scenes/no-such.scene: cannot open scene file: No such file or directory");
    assert_null(s.spheres);
    assert_int_equal(pt_scene_load("scenes", &s, error, sizeof error), -1);
    assert_string_equal(error, "scenes: cannot read scene file: it is a directory");
    assert_int_equal(pt_scene_load("/dev/null", &s, error, sizeof error), -1);
    assert_string_equal(error, "/dev/null: cannot read scene file: it is a character device, not a regular file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(benchmark_scene_is_the_spec),
        cmocka_unit_test(quick_scene_is_the_benchmark_smaller),
        cmocka_unit_test(world_is_the_scene_at_the_size_given),
        cmocka_unit_test(every_material_parses),
        cmocka_unit_test(material_names),
        cmocka_unit_test(comments_blank_lines_and_crlf_are_accepted),
        cmocka_unit_test(every_bad_file_is_named_with_its_line),
        cmocka_unit_test(lines_at_the_limit),
        cmocka_unit_test(a_scene_holds_at_most_max_spheres),
        cmocka_unit_test(the_two_formats_refuse_each_other),
        cmocka_unit_test(a_missing_file_and_a_directory_are_named),
    };
    return cmocka_run_group_tests_name("path-tracing scene parser", tests, NULL, NULL);
}
