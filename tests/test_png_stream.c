/* The PNG encoder fed in bands (common/image/png_encode.c, png_stream_*: stage 21a-streamed-png's),
 * and
 * png_assemble() and image_write_encoded() that it uses. No GPU: the rows arrive here as a
 * stage's bands would, one band at a time, from the test's thread or another one, into a buffer
 * full of other bytes until then, so that a row read before it is announced shows as a wrong
 * pixel. Checked with decoders that share no code with the encoder: the test's own chunk walker,
 * CRC-32, Adler-32 and unfiltering, stb_image, and Python's zlib (tests/png_check.py). */
#include "test_support.h"

#include <pthread.h>
#include <time.h>

#include <stb_image.h>

#include "image/image.h"
#include "image/png_encode.h"

#include "png_checks.h"

/* ---- Images, and rows that arrive in bands ---- */

/* The frame buffer the rows arrive in, full of other bytes until then. */
struct arrival {
    const struct image *truth;
    struct image frame;
    struct png_stream *stream;
    int band_rows;
    int pause_us; /* between bands: time for a thread that would not wait to read too early */
};

static void sleep_us(int us)
{
    struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

/* Copies each band into the frame, then announces it, as the stage's host function does. */
static void *arrive(void *argument)
{
    struct arrival *a = argument;
    size_t row_bytes = (size_t)a->truth->width * 3;
    for (int first = 0; first < a->truth->height; first += a->band_rows) {
        int end = first + a->band_rows < a->truth->height ? first + a->band_rows : a->truth->height;
        sleep_us(a->pause_us);
        memcpy(a->frame.rgb + first * row_bytes, a->truth->rgb + first * row_bytes,
               (size_t)(end - first) * row_bytes);
        png_stream_rows_ready(a->stream, end);
    }
    return NULL;
}

/* Streams image in bands of band_rows (announced from another thread when elsewhere is set),
 * finishes, and checks the file; returns the stream's chunk count. */
static int check_streamed(const struct image *image, int band_rows, struct png_options options,
                          int elsewhere, int pause_us)
{
    struct arrival a = {image, {0, 0, NULL}, NULL, band_rows, pause_us};
    assert_int_equal(image_alloc(&a.frame, image->width, image->height), 0);
    memset(a.frame.rgb, 0xa5, (size_t)image->width * image->height * 3);
    char error[IMAGE_ERROR_BYTES];
    a.stream = png_stream_start(&a.frame, band_rows, &options, error, sizeof error);
    if (!a.stream)
        fail_msg("%dx%d in bands of %d: png_stream_start: %s", image->width, image->height,
                 band_rows, error);
    int chunks = png_stream_chunk_count(a.stream);
    pthread_t thread;
    if (elsewhere)
        assert_int_equal(pthread_create(&thread, NULL, arrive, &a), 0);
    else
        arrive(&a);
    if (elsewhere)
        assert_int_equal(pthread_join(thread, NULL), 0);
    unsigned char *png;
    size_t png_bytes;
    if (png_stream_finish(a.stream, &png, &png_bytes, error, sizeof error))
        fail_msg("%dx%d: png_stream_finish: %s", image->width, image->height, error);
    check_png(png, png_bytes, image, options.idat_bytes ? options.idat_bytes : PNG_IDAT_BYTES,
              options.filter);
    free(png);
    image_free(&a.frame);
    return chunks;
}

/* ---- The tests ---- */

/* A band is one chunk per PNG_MIN_CHUNK_BYTES of filtered rows, at most one per thread, at least
 * one; the stream's chunks are its bands'. */
static void chunks_follow_the_bands(void **state)
{
    (void)state;
    /* The benchmark's band: 512 rows of 8192 pixels, 12.6 MB filtered. */
    assert_int_equal(png_stream_chunks_of_band(8192, 512, 16), 12);
    assert_int_equal(png_stream_chunks_of_band(8192, 512, 4), 4);
    assert_int_equal(png_stream_chunks_of_band(8192, 512, 1), 1);
    assert_int_equal(png_stream_chunks_of_band(512, 32, 16), 1); /* quick.scene: 49 KB */
    assert_int_equal(png_stream_chunks_of_band(1, 1, 64), 1);
    char error[IMAGE_ERROR_BYTES];
    struct png_options options = {16, PNG_FILTER_UP, 0};
    struct image image;
    assert_int_equal(image_alloc(&image, 8192, 8192), 0);
    memset(image.rgb, 0, (size_t)8192 * 8192 * 3);
    static const int band_rows[] = {512, 519};
    /* 16 bands of 512 rows: 12 chunks each; 15 bands of 519 and one of 407: 12 each, 9 last. */
    static const int expected[] = {16 * 12, 15 * 12 + 9};
    for (int k = 0; k < 2; ++k) {
        struct png_stream *stream =
            png_stream_start(&image, band_rows[k], &options, error, sizeof error);
        assert_non_null(stream);
        assert_int_equal(png_stream_chunk_count(stream), expected[k]);
        unsigned char *png;
        size_t png_bytes;
        assert_int_equal(png_stream_finish(stream, &png, &png_bytes, error, sizeof error), 0);
        free(png);
    }
    image_free(&image);
}

/* Small and odd sizes, bands of one row to more rows than the image has, every filter, one thread
 * or several, IDATs cut small: the same pixels as the image. */
static void small_and_odd_sizes_decode_exactly(void **state)
{
    (void)state;
    static const int cases[][3] = {/* width, height, band rows */
                                   {1, 1, 1},    {2, 1, 16},   {1, 2, 1},    {3, 7, 2},
                                   {17, 9, 4},   {31, 767, 48}, {1023, 767, 48}, {512, 512, 32},
                                   {4097, 33, 1}, {5, 300, 299}};
    static const enum png_filter filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                              PNG_FILTER_PAETH, PNG_FILTER_ADAPTIVE};
    static const int threads[] = {1, 2, 0};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        struct image image;
        benchmark_like(&image, cases[c][0], cases[c][1], 1);
        for (size_t f = 0; f < sizeof filters / sizeof *filters; ++f)
            for (size_t t = 0; t < sizeof threads / sizeof *threads; ++t) {
                struct png_options options = {threads[t], filters[f], 0};
                check_streamed(&image, cases[c][2], options, (int)(t % 2), 0);
                options.idat_bytes = 997;
                check_streamed(&image, cases[c][2], options, 0, 0);
            }
        image_free(&image);
    }
}

/* Bands that arrive slowly, from another thread, into a buffer of other bytes: a chunk read
 * before its rows were announced would decode wrong. Several chunks a band (3 MB bands). */
static void rows_are_read_only_once_announced(void **state)
{
    (void)state;
    struct image image;
    benchmark_like(&image, 4096, 1000, 1);
    struct png_options options = {4, PNG_FILTER_UP, 0};
    int chunks = check_streamed(&image, 256, options, 1, 3000);
    print_message("# 4096x1000 in bands of 256 rows on 4 threads: %d chunks\n", chunks);
    assert_int_equal(chunks, 3 + 3 + 3 + 2); /* 3.1 MB bands: 3 chunks; the last 232 rows: 2 */
    options.threads = 0;
    check_streamed(&image, 256, options, 1, 3000);
    check_streamed(&image, 7, options, 1, 100);
    image_free(&image);
}

/* The benchmark's size and bands, on every core; then as a file, checked by Python's zlib too. */
static void an_8192x8192_frame_in_16_bands(void **state)
{
    (void)state;
    struct image image;
    benchmark_like(&image, 8192, 8192, 1);
    int chunks = check_streamed(&image, 512, png_default_options(), 1, 200);
    print_message("# 8192x8192 in 16 bands: %d chunks\n", chunks);
    image_free(&image);
}

/* The file: image_write_encoded() writes what it is given, through a temporary file; it says
 * why it cannot, and leaves nothing behind. */
static void files_are_written_whole(void **state)
{
    (void)state;
    struct image image;
    benchmark_like(&image, 333, 222, 1);
    char error[IMAGE_ERROR_BYTES];
    struct png_options options = png_default_options();
    struct png_stream *stream = png_stream_start(&image, 14, &options, error, sizeof error);
    assert_non_null(stream);
    png_stream_rows_ready(stream, 100);
    png_stream_rows_ready(stream, 50); /* late or repeated news changes nothing */
    unsigned char *png;
    size_t png_bytes;
    assert_int_equal(png_stream_finish(stream, &png, &png_bytes, error, sizeof error), 0);

    char *folder = make_temporary_folder();
    char path[256], raw[256];
    snprintf(path, sizeof path, "%s/frame.png", folder);
    if (image_write_encoded(path, png, png_bytes, error, sizeof error))
        fail_msg("image_write_encoded: %s", error);
    struct image read;
    assert_int_equal(image_read(path, &read, error, sizeof error), 0);
    assert_int_equal(read.width, 333);
    assert_int_equal(read.height, 222);
    assert_same_pixels(read.rgb, &image, "image_read (file)");
    image_free(&read);
    if (run_shell("python3 -c 'import zlib'")->exit_code == 0) {
        snprintf(raw, sizeof raw, "%s/frame.rgb", folder);
        FILE *file = fopen(raw, "wb");
        assert_non_null(file);
        assert_int_equal(fwrite(image.rgb, 1, (size_t)333 * 222 * 3, file), (size_t)333 * 222 * 3);
        assert_int_equal(fclose(file), 0);
        struct command_result *r =
            run_shell("python3 tests/png_check.py '%s' '%s' 333 222", path, raw);
        if (r->exit_code != 0 || strncmp(r->out, "ok", 2) != 0)
            fail_msg("png_check.py: status %d: %s%s", r->exit_code, r->out, r->err);
        remove(raw);
    }
    struct command_result *r = run_shell("ls -A '%s'", folder);
    assert_string_equal(r->out, "frame.png\n");

    snprintf(path, sizeof path, "%s/no-such-folder/frame.png", folder);
    assert_int_equal(image_write_encoded(path, png, png_bytes, error, sizeof error), -1);
    assert_non_null(strstr(error, "cannot write the output"));
    assert_null(strchr(error, '\n'));
    r = run_shell("ls -A '%s'", folder);
    assert_string_equal(r->out, "frame.png\n");
    free(png);
    remove_temporary_folder(folder);
    image_free(&image);
}

static void bad_sizes_are_one_message(void **state)
{
    (void)state;
    char error[IMAGE_ERROR_BYTES];
    struct png_options options = png_default_options();
    struct image image = {0, 5, NULL};
    assert_null(png_stream_start(&image, 1, &options, error, sizeof error));
    assert_non_null(strstr(error, "cannot encode"));
    image = (struct image){5, 5, NULL};
    assert_null(png_stream_start(&image, 0, &options, error, sizeof error));
    assert_non_null(strstr(error, "bands of 0 rows"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_follow_the_bands),
        cmocka_unit_test(small_and_odd_sizes_decode_exactly),
        cmocka_unit_test(rows_are_read_only_once_announced),
        cmocka_unit_test(an_8192x8192_frame_in_16_bands),
        cmocka_unit_test(files_are_written_whole),
        cmocka_unit_test(bad_sizes_are_one_message),
    };
    return cmocka_run_group_tests_name("the PNG encoder fed in bands", tests, NULL, NULL);
}
