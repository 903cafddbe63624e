/* The scene parser: the committed scenes load as SPEC.md describes, and every kind of bad file
 * gets a message naming file, line and what is wrong. */
#include <math.h>

#include "test_support.h"

#include "raytrace/scene.h"

#define VALID_HEADER                                                                              \
    "size 64 48\ncamera 0 0 1\nbackground 94 156 255\nlight 1 1 1\nlight_colour 1 1 1\n"          \
    "ambient 0.1\ndiffuse 0.7\nspecular 0.7\n"

static int parse(const char *text, struct scene *scene, char *error)
{
    return scene_parse(text, strlen(text), "t.scene", scene, error, SCENE_ERROR_BYTES);
}

static void benchmark_scene_is_the_spec(void **state)
{
    (void)state;
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_load("scenes/benchmark.scene", &s, error, sizeof error), 0);
    assert_int_equal(s.width, 8192);
    assert_int_equal(s.height, 8192);
    assert_int_equal(s.sphere_count, 19);
    assert_true(s.camera.x == 0 && s.camera.y == 0 && s.camera.z == 1);
    assert_true(s.background.x == 94 && s.background.y == 156 && s.background.z == 255);
    assert_true(s.light_position.x == 1 && s.light_colour.z == 1);
    assert_true(s.ambient == 0.1f && s.diffuse == 0.7f && s.specular == 0.7f);
    assert_true(s.spheres[0].radius == 1000 && s.spheres[0].centre.y == -1002);
    assert_true(s.spheres[8].centre.x == -1.25f && s.spheres[8].colour.z == 0.5f);
    assert_true(s.spheres[18].centre.y == 0.75f && s.spheres[18].colour.x == 1.0f);
    scene_free(&s);
}

static void every_committed_scene_loads(void **state)
{
    (void)state;
    const char *paths[] = {"scenes/benchmark.scene", "scenes/quick.scene", "scenes/odd-size.scene",
                           "scenes/one-sphere.scene", "scenes/many-spheres.scene",
                           "scenes/too-many-spheres.scene"};
    int counts[] = {19, 19, 19, 1, 301, 2001};
    for (int k = 0; k < 6; ++k) {
        struct scene s;
        char error[SCENE_ERROR_BYTES];
        int loaded = scene_load(paths[k], &s, error, sizeof error);
        if (loaded)
            print_message("%s\n", error);
        assert_int_equal(loaded, 0);
        assert_int_equal(s.sphere_count, counts[k]);
        scene_free(&s);
    }
}

static void comments_blank_lines_and_crlf_are_accepted(void **state)
{
    (void)state;
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    const char *text = "# a comment\r\n\r\n   \t\n" VALID_HEADER
                       "sphere 0.5 0 0 -3 1 0 0   # trailing comment\r\n";
    assert_int_equal(parse(text, &s, error), 0);
    assert_int_equal(s.sphere_count, 1);
    assert_true(s.spheres[0].radius == 0.5f && s.spheres[0].centre.z == -3.0f);
    scene_free(&s);
}

struct bad_case {
    const char *text;
    const char *message;
};

static const struct bad_case bad_cases[] = {
    {VALID_HEADER "spheer 1 0 0 0 1 1 1\n", "t.scene:9: unknown keyword 'spheer'"},
    {VALID_HEADER "sphere 1 0 0 0 1 1\n", "t.scene:9: 'sphere' needs 7 values (radius cx cy cz r g b), got 6"},
    {VALID_HEADER "sphere 1 0 0 0 1 1 1 1\n", "t.scene:9: 'sphere' needs 7 values"},
    {VALID_HEADER "sphere 1 0 zero 0 1 1 1\n", "t.scene:9: 'sphere': 'zero' is not a number"},
    {VALID_HEADER "sphere 1 0 1.5x 0 1 1 1\n", "t.scene:9: 'sphere': '1.5x' is not a number"},
    {VALID_HEADER "sphere -1 0 0 0 1 1 1\n", "t.scene:9: 'sphere': radius -1 must be positive"},
    {VALID_HEADER "sphere 0 0 0 0 1 1 1\n", "t.scene:9: 'sphere': radius 0 must be positive"},
    {VALID_HEADER "sphere nan 0 0 0 1 1 1\n", "t.scene:9: 'sphere': 'nan' is not a finite number"},
    {VALID_HEADER "sphere 1 inf 0 0 1 1 1\n", "t.scene:9: 'sphere': 'inf' is not a finite number"},
    {VALID_HEADER "sphere 1 1e39 0 0 1 1 1\n", "t.scene:9: 'sphere': '1e39' is too large (magnitude at most 3e38)"},
    {VALID_HEADER "sphere 1 0 0 0 1 2 1\n", "t.scene:9: 'sphere': colour channel 2 is out of range [0, 1]"},
    {VALID_HEADER, "t.scene: no spheres"},
    {"size 0 48\n", "t.scene:1: image size 0x48 is too small"},
    {"size 64 100000\n", "t.scene:1: image size 64x100000 is too large (each side at most 32768)"},
    {"size 64.5 48\n", "t.scene:1: 'size': 64.5 is not a whole number"},
    {"size 64\n", "t.scene:1: 'size' needs 2 values (width height), got 1"},
    {"size 64 48\nsize 64 48\n", "t.scene:2: 'size' given twice (first on line 1)"},
    {"background 94 156 256\n", "t.scene:1: 'background': channel 256 is out of range [0, 255]"},
    {"ambient -0.1\n", "t.scene:1: 'ambient': coefficient -0.1 is out of range [0, 1]"},
    {"size 64 48\ncamera 0 0 1\n", "t.scene: missing 'background r g b (0..255)'"},
    {"size 64 48\ncam\x01 1 2 3\n", "t.scene:2: unexpected character (byte 0x01, a control byte) in column 4"},
};

static void every_bad_file_is_named_with_its_line(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; ++k) {
        struct scene s;
        char error[SCENE_ERROR_BYTES] = "";
        int result = parse(bad_cases[k].text, &s, error);
        if (result == 0 || strstr(error, bad_cases[k].message) != error)
            print_message("# case %zu: got '%s', want '%s...'\n", k, error, bad_cases[k].message);
        assert_int_equal(result, -1);
        assert_ptr_equal(strstr(error, bad_cases[k].message), error);
        assert_null(strchr(error, '\n'));
        assert_null(s.spheres);
    }
}

static void a_truncated_file_and_a_nul_byte_are_errors(void **state)
{
    (void)state;
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    const char full[] = VALID_HEADER "sphere 1 0 0 -3 1 1 1\n";
    /* Cut in the middle of the sphere line: 'sphere 1 0 0' */
    size_t cut = strlen(VALID_HEADER) + 12;
    assert_int_equal(scene_parse(full, cut, "t.scene", &s, error, sizeof error), -1);
    assert_string_equal(error, "t.scene:9: 'sphere' needs 7 values (radius cx cy cz r g b), got 3");
    const char with_nul[] = "size 64 48\nca\0mera 0 0 1\n";
    assert_int_equal(scene_parse(with_nul, sizeof with_nul - 1, "t.scene", &s, error, sizeof error), -1);
    assert_string_equal(error, "t.scene:2: unexpected character (byte 0x00, a control byte) in column 3");
}

static void an_overlong_line_is_an_error(void **state)
{
    (void)state;
    char text[3000];
    memset(text, ' ', sizeof text);
    text[sizeof text - 1] = '\0';
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(parse(text, &s, error), -1);
    assert_string_equal(error, "t.scene:1: line longer than 1024 characters");
}

/* A line of exactly 1024 characters is accepted with LF and with CRLF (the CR is not counted);
 * one character more is refused either way. */
static void crlf_lines_at_the_limit_are_accepted_like_lf_lines(void **state)
{
    (void)state;
    static char text[8192];
    char comment[1100];
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    for (int crlf = 0; crlf < 2; crlf++) {
        for (int length = 1024; length <= 1025; length++) {
            memset(comment, '#', (size_t)length);
            comment[length] = '\0';
            snprintf(text, sizeof text, "%s%s\n" VALID_HEADER "sphere 0.5 0 0 -3 1 0 0\n", comment,
                     crlf ? "\r" : "");
            int status = parse(text, &s, error);
            if (length == 1024) {
                if (status != 0)
                    fail_msg("a %s line of 1024 characters was refused: %s", crlf ? "CRLF" : "LF", error);
                scene_free(&s);
            } else {
                assert_int_equal(status, -1);
                assert_string_equal(error, "t.scene:1: line longer than 1024 characters");
            }
        }
    }
}

/* Text that is not plain ASCII, or not Unix or DOS text, is named for what it is. */
static void foreign_text_is_named_for_what_it_is(void **state)
{
    (void)state;
    const struct bad_case cases[] = {
        {"\xEF\xBB\xBFsize 64 48\n",
         "t.scene:1: the file starts with a UTF-8 byte-order mark (bytes 0xEF 0xBB 0xBF): save it as plain ASCII"},
        {"size 64 48\rcamera 0 0 1\r",
         "t.scene:1: a carriage return (CR) in column 11 that does not end the line: line ends must be LF or CRLF, "
         "not CR alone (old Mac line ends)"},
        {"size 64\xC2\xA0" "48\n",
         "t.scene:1: unexpected character (bytes 0xC2 0xA0, a UTF-8 non-breaking space) in column 8: scene files "
         "are plain ASCII"},
        {"size 64 48\ncamera 0 0 1\x0c\n", "t.scene:2: unexpected character (byte 0x0c, a control byte) in column 13"},
        {"size 64 48 # caf\xC3\xA9\n", "t.scene:1: unexpected character (byte 0xc3, not ASCII) in column 17: scene files are plain ASCII"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct scene s;
        char error[SCENE_ERROR_BYTES];
        assert_int_equal(parse(cases[k].text, &s, error), -1);
        if (strcmp(error, cases[k].message) != 0)
            fail_msg("case %zu: got '%s', want '%s'", k, error, cases[k].message);
    }
}

static void a_missing_file_and_a_directory_are_named(void **state)
{
    (void)state;
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_load("scenes/no-such.scene", &s, error, sizeof error), -1);
    assert_string_equal(error, "scenes/no-such.scene: cannot open scene file: No such file or directory");
    assert_int_equal(scene_load("scenes", &s, error, sizeof error), -1);
    assert_string_equal(error, "scenes: cannot read scene file: it is a directory");
}

static void size_check_names_the_limits(void **state)
{
    (void)state;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_check_size(2, 2, error, sizeof error), 0);
    assert_int_equal(scene_check_size(32768, 32768, error, sizeof error), 0);
    assert_int_equal(scene_check_size(1, 10, error, sizeof error), -1);
    assert_string_equal(error, "image size 1x10 is too small (each side at least 2)");
    assert_int_equal(scene_check_size(100000, 100000, error, sizeof error), -1);
    assert_string_equal(error, "image size 100000x100000 is too large (each side at most 32768)");
}

/* The light cells' budget (stages 14-21a): the camera's distance to the light plus the longest
 * tangent from the camera to a sphere, or distance plus radius for a sphere around the camera,
 * plus 1e-3 of the distance. Camera (0, 0, 1), light (1, 1, 1): sqrt(2) apart. */
static void shadow_near_is_the_farthest_tangent(void **state)
{
    (void)state;
    struct scene s;
    char error[SCENE_ERROR_BYTES];
    /* Centre 5 from the camera, radius 1: the tangent is sqrt(24). */
    assert_int_equal(parse(VALID_HEADER "sphere 1 0 0 -4 1 1 1\n", &s, error), 0);
    assert_float_equal(scene_shadow_near(&s), sqrt(2.0) + sqrt(24.0) + 0.005, 1e-5);
    scene_free(&s);
    /* Radius 10 around the camera (centre 2 away): no tangent, 2 + 10 across it. */
    assert_int_equal(parse(VALID_HEADER "sphere 1 0 0 -4 1 1 1\nsphere 10 0 0 -1 1 1 1\n", &s, error), 0);
    assert_float_equal(scene_shadow_near(&s), sqrt(2.0) + 12.0 + 0.002, 1e-5);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(benchmark_scene_is_the_spec),
        cmocka_unit_test(every_committed_scene_loads),
        cmocka_unit_test(comments_blank_lines_and_crlf_are_accepted),
        cmocka_unit_test(every_bad_file_is_named_with_its_line),
        cmocka_unit_test(a_truncated_file_and_a_nul_byte_are_errors),
        cmocka_unit_test(an_overlong_line_is_an_error),
        cmocka_unit_test(crlf_lines_at_the_limit_are_accepted_like_lf_lines),
        cmocka_unit_test(foreign_text_is_named_for_what_it_is),
        cmocka_unit_test(a_missing_file_and_a_directory_are_named),
        cmocka_unit_test(size_check_names_the_limits),
        cmocka_unit_test(shadow_near_is_the_farthest_tangent),
    };
    return cmocka_run_group_tests_name("scene parser", tests, NULL, NULL);
}
