/* The CPU reference renderer against SPEC.md: pixels derived independently
 * (tests/golden/derive_spot_pixels.py), among them one in a highlight that is also derived by hand
 * below, so that the specular term and its power 32 are checked too, and a committed golden image. */
#include "test_support.h"

#include "raytrace/cpu_reference.h"

struct spot {
    int i, j;
    float r, g, b; /* exact float32 values from derive_spot_pixels.py */
    unsigned char r8, g8, b8;
    const char *what;
};

static const struct spot quick_spots[] = {
    {0, 0, 94.0f, 156.0f, 255.0f, 94, 156, 255, "background"},
    {256, 500, 56.35710525512695f, 70.34298706054688f, 92.67529296875f, 56, 70, 92, "floor, lit"},
    {150, 330, 9.2431640625f, 11.536996841430664f, 15.199732780456543f, 9, 11, 15,
     "floor, shadowed"},
    {100, 360, 32.133087158203125f, 40.1074104309082f, 52.84060287475586f, 32, 40, 52,
     "floor, lit"},
    {90, 240, 108.4952392578125f, 31.498619079589844f, 69.99693298339844f, 108, 31, 69,
     "sphere 8, lit"},
    {256, 150, 65.8993148803711f, 29.654691696166992f, 102.14393615722656f, 65, 29, 102,
     "sphere 16, lit"},
};

static struct scene load(const char *path)
{
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    int loaded = scene_load(path, &scene, error, sizeof error);
    if (loaded)
        print_message("%s\n", error);
    assert_int_equal(loaded, 0);
    return scene;
}

static void spot_pixels_match_the_independent_derivation(void **state)
{
    (void)state;
    struct scene scene = load("scenes/quick.scene");
    for (size_t k = 0; k < sizeof quick_spots / sizeof quick_spots[0]; ++k) {
        const struct spot *s = &quick_spots[k];
        struct spec_vec3 c = cpu_reference_pixel(&scene, 512, 512, s->i, s->j);
        print_message("# (%d, %d) %s: %.9g %.9g %.9g\n", s->i, s->j, s->what, c.x, c.y, c.z);
        assert_true(c.x == s->r && c.y == s->g && c.z == s->b);
        assert_int_equal(image_channel_from_float(c.x), s->r8);
        assert_int_equal(image_channel_from_float(c.y), s->g8);
        assert_int_equal(image_channel_from_float(c.z), s->b8);
    }
    scene_free(&scene);
}

/* The specular term, which the spots above leave out (at each of them max0(R.V)^32 is too small
 * to move a bit): a scene made for it, where the highlight is two fifths of the lighting and
 * every step can be redone by hand, exact in float except where it says "rounds". Redo it with
 * python3 tests/golden/derive_spot_pixels.py, which follows SPEC.md step by step too.
 *   Scene: 2x2 pixels, camera O = (0, 0, 1), background 0, light (7, 0, 23) of colour 1,
 *   ka = 0.1, kd = 0.2, ks = 0.7, one sphere of radius 1 at c = (0, 0, -2), colour (1, 0.5, 0.25).
 *   Pixel (0, 0): px = 2*(0 + 0.5)/(2 - 1) - 1 = 0, py = 1 - 2*(0 + 0.5)/(2 - 1) = 0,
 *     d = (0, 0, -1) - O = (0, 0, -2).
 *   Hit: oc = O - c = (0, 0, 3), a = 4, b = 2*(-6) = -12, k = 9 - 1 = 8, disc = 144 - 16*8 = 16,
 *     t0 = (12 - 4)/8 = 1 (t1 = 2): P = O + d = (0, 0, -1).
 *   N = norm(P - c) = norm(0, 0, 1) = (0, 0, 1); V = norm(O - P) = norm(0, 0, 2) = (0, 0, 1);
 *     light - P = (7, 0, 24), of length sqrt(625) = 25, so L = (7/25, 0, 24/25), the divisions
 *     rounding to 0.28f (0x3e8f5c29) and 0.96f (0x3f75c28f).
 *   R: 2*((-L).N) = -1.92f, so -L - (-1.92f) N = (-0.28f, 0, -0.96f + 1.92f) = (-0.28f, 0, 0.96f);
 *     its length: 0.28f*0.28f = 0.0784f rounds, 0.96f*0.96f = 0.9216f rounds, their sum rounds
 *     to 1, so R = (-0.28f, 0, 0.96f).
 *   Shadow: P' = P + 0.001 N = (0, 0, -0.999f); the ray from P' along light - P' = (7, 0, 23.999f)
 *     meets the sphere only behind it (roots -0.077 and -0.00004), so shadow = 1. The reflection
 *     from P' along R likewise (roots -1.92 and -0.001): refl = background / 255 = 0.
 *   diffuse = L.N = 0.96f; R.V = 0.96f, and its five squarings, each rounding: 0.921599984f
 *     (0x3f6bedfa), 0.849346519f (0x3f596ec6), 0.721389532f (0x3f38acfc), 0.520402849f
 *     (0x3f05391f), specular = 0.270819128f (0x3e8aa8ce).
 *   A = (0.1f*1 + (0.2f*0.96f)*1) + (0.7f*0.270819128f)*1 = (0.1f + 0.192f) + 0.189573392f
 *     = 0.481573403f in each channel, under the cap of 1.
 *   surface = 0.55f*(C - 0) + 0 = (0.55f, 0.275f, 0.1375f); all = A surface =
 *     (0.264865369f, 0.132432684f, 0.0662163422f).
 *   pixel = (255.999f*1) all = (67.8052673f, 33.9026337f, 16.9513168f): bytes (67, 33, 16).
 * With the power 16 (four squarings, 0.520402849f) A would be 0.656281948f and the bytes
 * (92, 46, 23); with no specular term at all, (41, 20, 10). */
static const char *const highlight_scene = "size 2 2\ncamera 0 0 1\nbackground 0 0 0\nlight 7 0 23\n"
                                           "light_colour 1 1 1\nambient 0.1\ndiffuse 0.2\nspecular 0.7\n"
                                           "sphere 1 0 0 -2 1 0.5 0.25\n";
static const struct spot highlight_spot = {0, 0, 67.80526733398438f, 33.90263366699219f, 16.951316833496094f,
                                           67, 33, 16, "the sphere, lit, in its highlight"};

static void a_specular_pixel_matches_the_derivation_by_hand(void **state)
{
    (void)state;
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_parse(highlight_scene, strlen(highlight_scene), "highlight", &scene, error, sizeof error),
                     0);
    const struct spot *s = &highlight_spot;
    struct spec_vec3 c = cpu_reference_pixel(&scene, 2, 2, s->i, s->j);
    print_message("# (%d, %d) %s: %.9g %.9g %.9g\n", s->i, s->j, s->what, c.x, c.y, c.z);
    if (!(c.x == s->r && c.y == s->g && c.z == s->b))
        fail_msg("the highlight pixel is %.9g %.9g %.9g, derived by hand %.9g %.9g %.9g", c.x, c.y, c.z, s->r, s->g,
                 s->b);
    /* And the same bytes in a rendered image. */
    struct image image;
    assert_int_equal(image_alloc(&image, 2, 2), 0);
    cpu_reference_render(&scene, 2, 2, 1, &image);
    const unsigned char *p = image.rgb + ((size_t)s->j * 2 + (size_t)s->i) * 3;
    assert_int_equal(p[0], s->r8);
    assert_int_equal(p[1], s->g8);
    assert_int_equal(p[2], s->b8);
    image_free(&image);
    scene_free(&scene);
}

static void rendered_image_holds_the_spot_pixels(void **state)
{
    (void)state;
    struct scene scene = load("scenes/quick.scene");
    struct image image;
    assert_int_equal(image_alloc(&image, 512, 512), 0);
    unsigned long long rays = cpu_reference_render(&scene, 512, 512, 3, &image);
    assert_true(rays >= 512ULL * 512ULL);
    for (size_t k = 0; k < sizeof quick_spots / sizeof quick_spots[0]; ++k) {
        const unsigned char *p = image.rgb + ((size_t)quick_spots[k].j * 512 + quick_spots[k].i) * 3;
        assert_int_equal(p[0], quick_spots[k].r8);
        assert_int_equal(p[1], quick_spots[k].g8);
        assert_int_equal(p[2], quick_spots[k].b8);
    }
    image_free(&image);
    scene_free(&scene);
}

static void matches_the_golden_image_with_any_thread_count(void **state)
{
    (void)state;
    struct scene scene = load("scenes/benchmark.scene");
    struct image golden;
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_read("tests/golden/benchmark-96x64.ppm", &golden, error, sizeof error), 0);
    int thread_counts[] = {1, 2, 7};
    for (int t = 0; t < 3; ++t) {
        struct image image;
        assert_int_equal(image_alloc(&image, 96, 64), 0);
        cpu_reference_render(&scene, 96, 64, thread_counts[t], &image);
        struct image_difference diff;
        assert_int_equal(image_compare(&golden, &image, &diff), 0);
        if (diff.differing_pixels)
            print_message("# %d threads: %lld pixels differ\n", thread_counts[t], diff.differing_pixels);
        assert_int_equal(diff.differing_pixels, 0);
        image_free(&image);
    }
    image_free(&golden);
    scene_free(&scene);
}

static void counts_rays_as_the_spec_defines_them(void **state)
{
    (void)state;
    /* One sphere straight ahead filling the whole view: a hit costs 3 rays (primary, shadow,
     * reflection that escapes), a miss 1. */
    const char *text = "size 4 4\ncamera 0 0 1\nbackground 0 0 0\nlight 0 10 1\n"
                       "light_colour 1 1 1\nambient 0.1\ndiffuse 0.7\nspecular 0.7\n"
                       "sphere 190 0 0 -200 1 1 1\n";
    struct scene scene;
    char error[SCENE_ERROR_BYTES];
    assert_int_equal(scene_parse(text, strlen(text), "inline", &scene, error, sizeof error), 0);
    struct image image;
    assert_int_equal(image_alloc(&image, 4, 4), 0);
    unsigned long long rays = cpu_reference_render(&scene, 4, 4, 2, &image);
    /* Every primary ray hits the big sphere; no reflection hits (it points back out). */
    assert_int_equal(rays, 16ULL * 3ULL);
    image_free(&image);
    scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spot_pixels_match_the_independent_derivation),
        cmocka_unit_test(a_specular_pixel_matches_the_derivation_by_hand),
        cmocka_unit_test(rendered_image_holds_the_spot_pixels),
        cmocka_unit_test(matches_the_golden_image_with_any_thread_count),
        cmocka_unit_test(counts_rays_as_the_spec_defines_them),
    };
    return cmocka_run_group_tests_name("cpu reference", tests, NULL, NULL);
}
