/* Images: SPEC.md's float-to-byte rule, PNG (png_encode.c: ISA-L on every core) and PPM written
 * and read back (a PNG through stb_image; a text PPM, side stage 02a's, read too), the comparison
 * the runner and the GPU tests use, and output paths checked up front. */
#include "test_support.h"

#include <sys/stat.h>

#include "image/image.h"

static void channels_are_truncated_toward_zero(void **state)
{
    (void)state;
    assert_int_equal(image_channel_from_float(0.0f), 0);
    assert_int_equal(image_channel_from_float(0.999f), 0);
    assert_int_equal(image_channel_from_float(94.0f), 94);
    assert_int_equal(image_channel_from_float(56.99f), 56);
    assert_int_equal(image_channel_from_float(255.999f), 255);
    assert_int_equal(image_channel_from_float(-3.0f), 0);
    assert_int_equal(image_channel_from_float(300.0f), 255);
    assert_int_equal(image_channel_from_float(0.0f / 0.0f), 0);
}

static void gradient(struct image *image, int width, int height)
{
    assert_int_equal(image_alloc(image, width, height), 0);
    for (int p = 0; p < width * height * 3; ++p)
        image->rgb[p] = (unsigned char)(p * 7 + p / 3);
}

static void round_trip(const char *extension)
{
    char *folder = make_temporary_folder();
    char path[256];
    snprintf(path, sizeof path, "%s/out%s", folder, extension);
    struct image written, read;
    gradient(&written, 37, 23);
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_write(path, &written, error, sizeof error), 0);
    assert_int_equal(image_read(path, &read, error, sizeof error), 0);
    assert_int_equal(read.width, 37);
    assert_int_equal(read.height, 23);
    assert_memory_equal(read.rgb, written.rgb, 37 * 23 * 3);
    /* Nothing beside the image: the temporary file was renamed into place. */
    struct command_result *r = run_shell("ls '%s'", folder);
    char expected[64];
    snprintf(expected, sizeof expected, "out%s\n", extension);
    assert_string_equal(r->out, expected);
    image_free(&written);
    image_free(&read);
    remove_temporary_folder(folder);
}

static void png_round_trip(void **state)
{
    (void)state;
    round_trip(".png");
}

/* A large image through the PNG encoder (png_encode.c; tests/test_png.c tests it in depth) and
 * back through stb_image: flat areas as the benchmark's background, smooth gradients as its
 * spheres, and a band of noise that does not compress. Every byte comes back, and the file is a
 * PNG smaller than the pixels. */
static void large_png_round_trip_is_exact(void **state)
{
    (void)state;
    const int width = 3001, height = 2003;
    struct image written, read;
    assert_int_equal(image_alloc(&written, width, height), 0);
    unsigned int noise = 12345;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            unsigned char *p = written.rgb + ((size_t)y * width + x) * 3;
            if (y < height / 3) {
                p[0] = 94, p[1] = 156, p[2] = 255;
            } else if (y < 2 * height / 3) {
                p[0] = (unsigned char)(x / 12), p[1] = (unsigned char)(y / 8), p[2] = (unsigned char)(x ^ y);
            } else {
                for (int c = 0; c < 3; ++c) {
                    noise = noise * 1103515245u + 12345u;
                    p[c] = (unsigned char)(noise >> 24);
                }
            }
        }
    char *folder = make_temporary_folder();
    char path[256], error[IMAGE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/large.png", folder);
    assert_int_equal(image_write(path, &written, error, sizeof error), 0);
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    assert_true(info.st_size < (off_t)width * height * 3);
    unsigned char signature[8] = {0};
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    assert_int_equal(fread(signature, 1, 8, file), 8);
    fclose(file);
    assert_memory_equal(signature, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(image_read(path, &read, error, sizeof error), 0);
    assert_int_equal(read.width, width);
    assert_int_equal(read.height, height);
    assert_memory_equal(read.rgb, written.rgb, (size_t)width * height * 3);
    image_free(&written);
    image_free(&read);
    remove_temporary_folder(folder);
}

/* Pixels that do not compress at all: the deflate falls back to stored blocks, and its output
 * buffer is large enough for them. */
static void incompressible_png_round_trip_is_exact(void **state)
{
    (void)state;
    const int width = 1500, height = 1100;
    struct image written, read;
    assert_int_equal(image_alloc(&written, width, height), 0);
    unsigned long long noise = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)width * height * 3; ++i) {
        noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;
        written.rgb[i] = (unsigned char)(noise >> 32);
    }
    char *folder = make_temporary_folder();
    char path[256], error[IMAGE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/noise.png", folder);
    assert_int_equal(image_write(path, &written, error, sizeof error), 0);
    assert_int_equal(image_read(path, &read, error, sizeof error), 0);
    assert_int_equal(read.width, width);
    assert_int_equal(read.height, height);
    assert_memory_equal(read.rgb, written.rgb, (size_t)width * height * 3);
    image_free(&written);
    image_free(&read);
    remove_temporary_folder(folder);
}

static void ppm_round_trip_is_binary_p6(void **state)
{
    (void)state;
    round_trip(".ppm");
    char *folder = make_temporary_folder();
    char path[256];
    snprintf(path, sizeof path, "%s/small.ppm", folder);
    struct image image;
    gradient(&image, 2, 2);
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_write(path, &image, error, sizeof error), 0);
    char bytes[64];
    FILE *file = fopen(path, "rb");
    size_t length = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    assert_int_equal(length, strlen("P6\n2 2\n255\n") + 12);
    assert_memory_equal(bytes, "P6\n2 2\n255\n", 11);
    assert_memory_equal(bytes + 11, image.rgb, 12);
    image_free(&image);
    remove_temporary_folder(folder);
}

/* A text PPM (P3), as side stage 02a writes it (one line "R G B" a pixel; the study's format),
 * reads as the same pixels as the binary one, whatever the blanks between its numbers. */
static void text_ppm_reads_as_its_pixels(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char path[256], error[IMAGE_ERROR_BYTES];
    struct image written, read;
    gradient(&written, 5, 3);
    for (int layout = 0; layout < 2; ++layout) {
        snprintf(path, sizeof path, "%s/text-%d.ppm", folder, layout);
        FILE *file = fopen(path, "w");
        assert_non_null(file);
        fprintf(file, layout ? "P3 # a comment\n5\t3 255 " : "P3\n5 3\n255\n");
        for (int p = 0; p < 5 * 3; ++p)
            fprintf(file, layout ? "%03d\t%d %d\r\n" : "%d %d %d\n", written.rgb[3 * p],
                    written.rgb[3 * p + 1], written.rgb[3 * p + 2]);
        if (layout)
            fprintf(file, "  \n");
        fclose(file);
        assert_int_equal(image_read(path, &read, error, sizeof error), 0);
        assert_int_equal(read.width, 5);
        assert_int_equal(read.height, 3);
        assert_memory_equal(read.rgb, written.rgb, 5 * 3 * 3);
        image_free(&read);
    }
    image_free(&written);
    remove_temporary_folder(folder);
}

static void compare_counts_pixels_and_largest_difference(void **state)
{
    (void)state;
    struct image a, b;
    gradient(&a, 10, 10);
    gradient(&b, 10, 10);
    struct image_difference diff;
    assert_int_equal(image_compare(&a, &b, &diff), 0);
    assert_int_equal(diff.differing_pixels, 0);
    assert_int_equal(diff.total_pixels, 100);
    b.rgb[0] ^= 1;                /* pixel 0, one channel, by 1 */
    b.rgb[3 * 42 + 1] += 9;       /* pixel 42, by 9 */
    b.rgb[3 * 42 + 2] += 3;       /* same pixel, another channel */
    assert_int_equal(image_compare(&a, &b, &diff), 0);
    assert_int_equal(diff.differing_pixels, 2);
    assert_int_equal(diff.largest_channel_difference, 9);
    struct image c;
    gradient(&c, 10, 11);
    assert_int_equal(image_compare(&a, &c, &diff), -1);
    image_free(&a);
    image_free(&b);
    image_free(&c);
}

static void compare_images_tool_reports_and_judges(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char a_path[256], b_path[256];
    snprintf(a_path, sizeof a_path, "%s/a.png", folder);
    snprintf(b_path, sizeof b_path, "%s/b.ppm", folder);
    struct image a;
    gradient(&a, 100, 100);
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_write(a_path, &a, error, sizeof error), 0);
    a.rgb[5] += 4;
    assert_int_equal(image_write(b_path, &a, error, sizeof error), 0);
    struct command_result *r = run_shell("%s/compare-images %s %s", test_build_dir(), a_path, b_path);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->out, "differing pixels: 1 of 10000 (0.010000%), largest channel difference: 4\n");
    r = run_shell("%s/compare-images %s %s --max-differing-percent 0.01", test_build_dir(), a_path, b_path);
    assert_int_equal(r->exit_code, 0);
    r = run_shell("%s/compare-images %s %s/missing.png", test_build_dir(), a_path, folder);
    assert_int_equal(r->exit_code, 2);
    assert_non_null(strstr(r->err, "compare-images: error: "));
    image_free(&a);
    remove_temporary_folder(folder);
}

/* compare-images on hostile input: status 2 and one line naming the file and what is wrong, never
 * a comparison of half an image, never a hang. */
static void compare_images_refuses_bad_files_and_arguments(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char good[256];
    snprintf(good, sizeof good, "%s/good.ppm", folder);
    struct image a;
    gradient(&a, 100, 100);
    char error[IMAGE_ERROR_BYTES];
    assert_int_equal(image_write(good, &a, error, sizeof error), 0);
    image_free(&a);
    const struct {
        const char *make; /* shell words that make the second argument, $F, in the folder */
        const char *expected;
    } cases[] = {
        {"head -c 5000 \"$G\" >\"$F\"", "truncated, 4985 of the 30000 bytes of pixels"},
        {"head -c 15 \"$G\" >\"$F\"", "truncated, 0 of the 30000 bytes of pixels"},
        {"cat \"$G\" \"$G\" >\"$F\"", "more data than its header announces"},
        {"printf 'P6\\n100 100\\n65535\\n' >\"$F\"", "not a binary PPM this course writes"},
        {"printf 'P6\\n0 100\\n255\\n' >\"$F\"", "not a binary PPM this course writes"},
        {"echo garbage >\"$F\"", "cannot read image: unknown image type"},
        {"head -c 100 \"$G\" | sed 1s/P6/P3/ >\"$F\"", "cannot read image"},
        {"printf 'P3\\n2 1\\n255\\n1 2 3\\n4 5\\n' >\"$F\"", "truncated, 5 of the 6 values of pixels"},
        {"printf 'P3\\n1 1\\n255\\n1 2 256\\n' >\"$F\"", "value 3 of the pixels is not a number from 0 to 255"},
        {"printf 'P3\\n1 1\\n255\\n1 2 3\\n4\\n' >\"$F\"", "then more data than its header announces"},
        {"printf 'P3\\n1 1\\n15\\n1 2 3\\n' >\"$F\"", "not a text PPM this course writes"},
        {"mkfifo \"$F\"", "it is a named pipe (FIFO), not a regular file"},
        {"mkdir \"$F\"", "it is a directory"},
        {":", "cannot open image: No such file or directory"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char bad[256];
        snprintf(bad, sizeof bad, "%s/bad-%zu.ppm", folder, k);
        struct command_result *r =
            run_shell("G='%s' F='%s' && %s && timeout 10 %s/compare-images \"$G\" \"$F\"", good, bad,
                      cases[k].make, test_build_dir());
        if (r->exit_code != 2 || !strstr(r->err, cases[k].expected) ||
            strchr(r->err, '\n') != r->err + strlen(r->err) - 1 || r->out[0])
            fail_msg("case %zu (%s): status %d, stderr: %s, stdout: %s", k, cases[k].make, r->exit_code,
                     r->err, r->out);
        if (!strstr(r->err, bad))
            fail_msg("case %zu: the message does not name %s: %s", k, bad, r->err);
    }
    const struct {
        const char *args, *expected;
    } usage[] = {
        {"\"$G\" \"$G\" --max-differing-percent", "option --max-differing-percent needs a value"},
        {"\"$G\" \"$G\" --max-differing-percent 101", "'101' is not a percentage"},
        /* strtod reads "" as 0, and takes leading blanks and a sign: none is a percentage. */
        {"\"$G\" \"$G\" --max-differing-percent ''",
         "option --max-differing-percent needs a value, not an empty one"},
        {"\"$G\" \"$G\" --max-differing-percent ' 5'", "' 5' is not a percentage"},
        {"\"$G\" \"$G\" --max-differing-percent +5", "'+5' is not a percentage"},
        {"\"$G\"", "two images are needed, 1 given"},
        {"", "two images are needed, 0 given"},
        {"\"$G\" \"$G\" \"$G\"", "a third image"},
        {"\"$G\" \"$G\" --frobnicate", "unknown option '--frobnicate'"},
    };
    for (size_t k = 0; k < sizeof usage / sizeof *usage; k++) {
        struct command_result *r =
            run_shell("G='%s' && %s/compare-images %s", good, test_build_dir(), usage[k].args);
        if (r->exit_code != 2 || !strstr(r->err, usage[k].expected) ||
            strncmp(r->err, "compare-images: error: ", strlen("compare-images: error: ")) != 0 ||
            strchr(r->err, '\n') != r->err + strlen(r->err) - 1 || r->out[0])
            fail_msg("arguments %s: status %d, stderr: %s, stdout: %s", usage[k].args, r->exit_code,
                     r->err, r->out);
    }
    remove_temporary_folder(folder);
}

/* An image that stops at the file-size limit (ulimit -f): a message, status 1, and neither the
 * temporary file nor a partial image left; an earlier image of that name is kept whole. */
static void a_write_that_fails_half_way_leaves_nothing(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char root[4096];
    assert_non_null(getcwd(root, sizeof root));
    struct command_result *r = run_shell(
        "cd '%s' && echo earlier >out.ppm && (ulimit -f 50; '%s/%s/cpu-reference' --scene '%s/scenes/quick.scene' "
        "--output out.ppm)",
        folder, root, test_build_dir(), root);
    assert_int_equal(r->exit_code, 1);
    assert_non_null(strstr(r->err, "out.ppm: writing the image failed: File too large"));
    r = run_shell("cd '%s' && ls -A", folder);
    assert_string_equal(r->out, "out.ppm\n");
    r = run_shell("cat '%s/out.ppm'", folder);
    assert_string_equal(r->out, "earlier\n");
    remove_temporary_folder(folder);
}

static void output_paths_are_checked_before_rendering(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char path[256], error[IMAGE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/fine.png", folder);
    assert_int_equal(image_check_output_path(path, error, sizeof error), 0);
    struct stat info;
    assert_int_not_equal(stat(path, &info), 0); /* the check leaves nothing behind */

    snprintf(path, sizeof path, "%s/picture.jpg", folder);
    assert_int_equal(image_check_output_path(path, error, sizeof error), -1);
    assert_non_null(strstr(error, "output must end in .png or .ppm"));

    snprintf(path, sizeof path, "%s/dir.png", folder);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(image_check_output_path(path, error, sizeof error), -1);
    assert_non_null(strstr(error, "output is a directory"));

    snprintf(path, sizeof path, "%s/no/such/folder/x.png", folder);
    assert_int_equal(image_check_output_path(path, error, sizeof error), -1);
    assert_non_null(strstr(error, "cannot write the output there: No such file or directory"));
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channels_are_truncated_toward_zero),
        cmocka_unit_test(png_round_trip),
        cmocka_unit_test(large_png_round_trip_is_exact),
        cmocka_unit_test(incompressible_png_round_trip_is_exact),
        cmocka_unit_test(ppm_round_trip_is_binary_p6),
        cmocka_unit_test(text_ppm_reads_as_its_pixels),
        cmocka_unit_test(compare_counts_pixels_and_largest_difference),
        cmocka_unit_test(compare_images_tool_reports_and_judges),
        cmocka_unit_test(compare_images_refuses_bad_files_and_arguments),
        cmocka_unit_test(a_write_that_fails_half_way_leaves_nothing),
        cmocka_unit_test(output_paths_are_checked_before_rendering),
    };
    return cmocka_run_group_tests_name("images", tests, NULL, NULL);
}
