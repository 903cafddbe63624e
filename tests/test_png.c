/* The parallel PNG encoder (common/image/png_encode.c and its parts) against decoders that share no
 * code with it: the test's own chunk walker, CRC-32, Adler-32 and unfiltering, stb_image's
 * inflate and PNG decoder, and Python's zlib and Pillow (tests/png_check.py). Sizes from 1x1 to
 * 8192x8192, odd widths, more threads than rows, every filter, IDATs cut small; and the errors:
 * nowhere to write, a full disk, a file-size limit, each leaving an earlier file whole. */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <isa-l/igzip_lib.h>
#include <stb_image.h>

#include "image/adler32_combine.h"
#include "image/image.h"
#include "image/png_encode.h"

#include "png_checks.h"

/* ---- Images ---- */

/* ---- Encoding in memory, checked ---- */

/* Encodes with options and checks everything about the result (check_png). */
static void check_encoding(const struct image *image, struct png_options options)
{
    unsigned char *png;
    size_t png_bytes;
    char error[IMAGE_ERROR_BYTES];
    if (png_encode(image, &options, &png, &png_bytes, error, sizeof error))
        fail_msg("%dx%d: png_encode failed: %s", image->width, image->height, error);
    check_png(png, png_bytes, image, options.idat_bytes ? options.idat_bytes : PNG_IDAT_BYTES,
              options.filter);
    free(png);
}

/* ---- Files, checked by stb_image and by Python (zlib, and Pillow when installed) ---- */

static int python_checks(void)
{
    static int known = 0, available = 0;
    if (!known) {
        available = run_shell("python3 -c 'import zlib'")->exit_code == 0;
        if (!available)
            print_message("# python3 not here: files are checked with stb_image only\n");
        else if (run_shell("python3 -c 'import PIL'")->exit_code != 0)
            print_message("# Pillow not here: tests/png_check.py checks CRCs and the zlib stream only\n");
        known = 1;
    }
    return available;
}

static void check_file(const struct image *image)
{
    char *folder = make_temporary_folder();
    char path[256], raw[256], error[IMAGE_ERROR_BYTES];
    snprintf(path, sizeof path, "%s/image.png", folder);
    snprintf(raw, sizeof raw, "%s/image.rgb", folder);
    if (image_write(path, image, error, sizeof error))
        fail_msg("image_write: %s", error);
    int width, height, channels;
    unsigned char *pixels = stbi_load(path, &width, &height, &channels, 3);
    if (!pixels)
        fail_msg("%dx%d: stb_image cannot read the file: %s", image->width, image->height,
                 stbi_failure_reason());
    assert_int_equal(width, image->width);
    assert_int_equal(height, image->height);
    assert_same_pixels(pixels, image, "stb_image (file)");
    stbi_image_free(pixels);
    if (python_checks()) {
        FILE *file = fopen(raw, "wb");
        assert_non_null(file);
        size_t bytes = (size_t)image->width * image->height * 3;
        assert_int_equal(fwrite(image->rgb, 1, bytes, file), bytes);
        assert_int_equal(fclose(file), 0);
        struct command_result *r = run_shell("python3 tests/png_check.py '%s' '%s' %d %d", path, raw,
                                             image->width, image->height);
        if (r->exit_code != 0 || strncmp(r->out, "ok, Pillow: ", 12) != 0)
            fail_msg("%dx%d: png_check.py: status %d: %s%s", image->width, image->height,
                     r->exit_code, r->out, r->err);
    }
    struct command_result *r = run_shell("ls -A '%s'", folder);
    assert_string_equal(r->out, python_checks() ? "image.png\nimage.rgb\n" : "image.png\n");
    remove_temporary_folder(folder);
}

/* ---- The tests ---- */

static void adler32_combine_matches_one_pass(void **state)
{
    (void)state;
    enum { BYTES = 300007 };
    unsigned char *data = malloc(BYTES);
    assert_non_null(data);
    unsigned int noise = 7;
    for (size_t i = 0; i < BYTES; ++i) {
        noise = noise * 1103515245u + 12345u;
        data[i] = i < BYTES / 3 ? 0xff : (unsigned char)(noise >> 24); /* all 0xff: the largest sums */
    }
    uint32_t whole = naive_adler32(1, data, BYTES);
    assert_int_equal(isal_adler32(1, data, BYTES), whole);
    const size_t splits[] = {0, 1, 2, 5551, 5552, 65520, 65521, 65522, 131042, 200000, BYTES - 1, BYTES};
    for (size_t k = 0; k < sizeof splits / sizeof *splits; ++k) {
        size_t s = splits[k];
        uint32_t a = naive_adler32(1, data, s), b = naive_adler32(1, data + s, BYTES - s);
        if (adler32_combine(a, b, BYTES - s) != whole)
            fail_msg("split at %zu: %08x, not %08x", s, adler32_combine(a, b, BYTES - s), whole);
    }
    /* Three pieces, combined left to right as the encoder does. */
    uint32_t combined = 1;
    size_t cuts[] = {0, 70000, 70001, 250000, BYTES};
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof *cuts; ++k)
        combined = adler32_combine(combined, naive_adler32(1, data + cuts[k], cuts[k + 1] - cuts[k]),
                                   cuts[k + 1] - cuts[k]);
    assert_int_equal(combined, whole);
    free(data);
}

static void chunks_follow_cores_rows_and_size(void **state)
{
    (void)state;
    struct png_options options = png_default_options();
    struct image image = {1, 1, NULL};
    assert_int_equal(png_chunk_count(&image, &options), 1);
    options.threads = 64;
    assert_int_equal(png_chunk_count(&image, &options), 1);
    image = (struct image){3, 7, NULL};
    assert_int_equal(png_chunk_count(&image, &options), 7); /* never more chunks than rows */
    image = (struct image){8192, 8192, NULL};
    options.threads = 100000;
    assert_int_equal(png_chunk_count(&image, &options), PNG_MAX_THREADS);
    options.threads = 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    assert_int_equal(png_chunk_count(&image, &options), cores < PNG_MAX_THREADS ? cores : PNG_MAX_THREADS);
    image = (struct image){100, 100, NULL}; /* 30 KB: one thread does it */
    assert_int_equal(png_chunk_count(&image, &options), 1);
}

/* The default filter is Up (png_encode.c: measured fastest and smallest of the cheap ones). */
static void the_default_is_up_on_every_core(void **state)
{
    (void)state;
    struct png_options options = png_default_options();
    assert_int_equal(options.filter, PNG_FILTER_UP);
    assert_int_equal(options.threads, 0);
}

/* Tiny and odd sizes (widths whose rows are not a multiple of 16 bytes, one row, one column),
 * every filter, one thread or as many as rows allow, IDATs of the default size or of a few bytes.
 */
static void small_and_odd_sizes_decode_exactly(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {2, 1}, {1, 2},  {3, 7},     {5, 3},    {6, 1},
                                   {1, 300}, {17, 9}, {4097, 33}, {31, 2049}, {800, 5}};
    static const enum png_filter filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                              PNG_FILTER_PAETH, PNG_FILTER_ADAPTIVE};
    static const int threads[] = {1, 2, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        struct image image;
        benchmark_like(&image, sizes[s][0], sizes[s][1], 1);
        for (size_t f = 0; f < sizeof filters / sizeof *filters; ++f)
            for (size_t t = 0; t < sizeof threads / sizeof *threads; ++t) {
                struct png_options options = {threads[t], filters[f], 0};
                check_encoding(&image, options);
                options.idat_bytes = image.width * image.height < 1000 ? 1 : 997;
                check_encoding(&image, options);
            }
        image_free(&image);
    }
}

/* Every chunk one row: 7 rows on 7 threads, 33 rows of 4097 pixels on 33, and 64 chunks of a
 * 4096x4096 image; each chunk's stream ends on a byte boundary and the next follows it. */
static void more_threads_than_rows(void **state)
{
    (void)state;
    struct image image;
    struct png_options options = {64, PNG_FILTER_UP, 0};
    benchmark_like(&image, 3, 7, 0);
    assert_int_equal(png_chunk_count(&image, &options), 7);
    check_encoding(&image, options);
    image_free(&image);
    benchmark_like(&image, 4097, 33, 1);
    assert_int_equal(png_chunk_count(&image, &options), 33);
    check_encoding(&image, options);
    image_free(&image);
    benchmark_like(&image, 4096, 4096, 1);
    assert_int_equal(png_chunk_count(&image, &options), 64);
    check_encoding(&image, options);
    image_free(&image);
}

/* Noise: ISA-L falls back to stored blocks, and the output buffers grow past their first guess
 * (a quarter of the input). */
static void noise_decodes_exactly(void **state)
{
    (void)state;
    struct image image;
    assert_int_equal(image_alloc(&image, 1500, 1100), 0);
    unsigned long long noise = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)1500 * 1100 * 3; ++i) {
        noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;
        image.rgb[i] = (unsigned char)(noise >> 32);
    }
    check_encoding(&image, (struct png_options){0, PNG_FILTER_NONE, 0});
    check_encoding(&image, (struct png_options){3, PNG_FILTER_UP, 0});
    check_file(&image);
    image_free(&image);
}

static void files_decode_with_stb_and_python(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1}, {3, 7}, {4097, 33}, {31, 2049}, {2000, 1500}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        struct image image;
        benchmark_like(&image, sizes[s][0], sizes[s][1], 1);
        check_file(&image);
        image_free(&image);
    }
}

static double seconds_now(void)
{
    struct timespec t;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t), 0);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The benchmark's size on every core: through every decoder, in memory and as a file. */
static void an_8192x8192_image_decodes_exactly(void **state)
{
    (void)state;
    struct image image;
    benchmark_like(&image, 8192, 8192, 1);
    double start = seconds_now();
    check_encoding(&image, png_default_options());
    check_file(&image);
    print_message("# 8192x8192: encoded and checked by every decoder in %.1f s\n", seconds_now() - start);
    image_free(&image);
}

/* The benchmark image (cpu-reference, 1024x1024) is no larger than the encoder before issue 25
 * made it: 323,673 bytes (stb_image_write, filter none, ISA-L level 2). */
static void the_benchmark_image_is_no_larger_than_before(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct command_result *r = run_shell("%s/cpu-reference --size 1024x1024 --output '%s/b.png'",
                                         test_build_dir(), folder);
    assert_int_equal(r->exit_code, 0);
    char path[256];
    snprintf(path, sizeof path, "%s/b.png", folder);
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    print_message("# the benchmark image at 1024x1024: %lld bytes (before: 323673)\n",
                  (long long)info.st_size);
    assert_true(info.st_size <= 323673);
    remove_temporary_folder(folder);
}

/* ---- Errors: one message, no file left, an earlier file kept ---- */

static void nowhere_to_write_is_one_message(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    struct image image;
    benchmark_like(&image, 64, 64, 0);
    char path[256], error[IMAGE_ERROR_BYTES];

    snprintf(path, sizeof path, "%s/no/such/folder/x.png", folder);
    assert_int_equal(image_write(path, &image, error, sizeof error), -1);
    assert_non_null(strstr(error, "x.png: cannot write the output: No such file or directory"));
    assert_null(strchr(error, '\n'));

    snprintf(path, sizeof path, "%s/file/x.png", folder); /* a regular file as the folder */
    assert_int_equal(run_shell("echo plain > '%s/file'", folder)->exit_code, 0);
    assert_int_equal(image_write(path, &image, error, sizeof error), -1);
    assert_non_null(strstr(error, "cannot write the output: Not a directory"));

    /* A directory of that name: the image is written beside it, the rename refused, nothing left.
     */
    snprintf(path, sizeof path, "%s/dir.png", folder);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(image_write(path, &image, error, sizeof error), -1);
    assert_non_null(strstr(error, "dir.png: writing the image failed: Is a directory"));

    if (geteuid() != 0) { /* root writes into a read-only folder regardless */
        snprintf(path, sizeof path, "%s/locked", folder);
        assert_int_equal(mkdir(path, 0555), 0);
        snprintf(path, sizeof path, "%s/locked/x.png", folder);
        assert_int_equal(image_write(path, &image, error, sizeof error), -1);
        assert_non_null(strstr(error, "cannot write the output: Permission denied"));
    } else {
        print_message("# running as root: the read-only folder case is left out\n");
    }
    struct command_result *r = run_shell("cd '%s' && ls -A", folder);
    assert_string_equal(r->out, geteuid() != 0 ? "dir.png\nfile\nlocked\n" : "dir.png\nfile\n");
    image_free(&image);
    remove_temporary_folder(folder);
}

/* image_write() in a child process held to 4 KiB files (RLIMIT_FSIZE): it must return -1 with
 * "File too large" (SIGXFSZ ignored, not fatal), remove its temporary file and leave the earlier
 * out.png whole. */
static void a_file_size_limit_keeps_the_earlier_file(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char path[256];
    snprintf(path, sizeof path, "%s/out.png", folder);
    assert_int_equal(run_shell("echo earlier > '%s'", path)->exit_code, 0);
    struct image image;
    benchmark_like(&image, 512, 512, 1); /* about 40 KB of PNG */
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    fflush(stdout);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(pipe_fds[0]);
        struct rlimit limit = {4096, 4096};
        char error[IMAGE_ERROR_BYTES] = "";
        int status = setrlimit(RLIMIT_FSIZE, &limit) == 0 ? image_write(path, &image, error, sizeof error)
                                                         : 2;
        ssize_t written = write(pipe_fds[1], error, strlen(error));
        _exit(status == -1 && written >= 0 ? 0 : 1);
    }
    close(pipe_fds[1]);
    char message[IMAGE_ERROR_BYTES + 1] = "";
    ssize_t length = read(pipe_fds[0], message, IMAGE_ERROR_BYTES);
    close(pipe_fds[0]);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the child: status %#x (a signal: %d), message: %s", status,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0, message);
    assert_true(length > 0);
    assert_non_null(strstr(message, "out.png: writing the image failed: File too large"));
    struct command_result *r = run_shell("cd '%s' && ls -A && cat out.png", folder);
    assert_string_equal(r->out, "out.png\nearlier\n");
    image_free(&image);
    remove_temporary_folder(folder);
}

/* The same through a program: cpu-reference under ulimit -f prints one line and exits 1. */
static void cpu_reference_under_a_file_size_limit(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char root[4096];
    assert_non_null(getcwd(root, sizeof root));
    struct command_result *r = run_shell(
        "cd '%s' && echo earlier >out.png && (ulimit -f 8; '%s/%s/cpu-reference' --scene '%s/scenes/benchmark.scene' "
        "--size 512x512 --output out.png)",
        folder, root, test_build_dir(), root);
    assert_int_equal(r->exit_code, 1);
    assert_string_equal(r->err, "cpu-reference: error: out.png: writing the image failed: File too large\n");
    r = run_shell("cd '%s' && ls -A && cat out.png", folder);
    assert_string_equal(r->out, "out.png\nearlier\n");
    remove_temporary_folder(folder);
}

/* A full disk: a 64 KiB tmpfs in a mount namespace of its own (unshare; skipped where user
 * namespaces are not allowed), too small for a 1024x1024 benchmark image. */
static void a_full_disk_keeps_the_earlier_file(void **state)
{
    (void)state;
    char *folder = make_temporary_folder();
    char root[4096];
    assert_non_null(getcwd(root, sizeof root));
    struct command_result *r = run_shell(
        "unshare --user --map-root-user --mount sh -c 'mount -t tmpfs -o size=64k tmpfs \"%s\"'",
        folder);
    if (r->exit_code != 0) {
        print_message("# skipped: no tmpfs in a mount namespace of its own here: %s\n", r->err);
        remove_temporary_folder(folder);
        skip();
    }
    r = run_shell("unshare --user --map-root-user --mount sh -c '"
                  "mount -t tmpfs -o size=64k tmpfs \"%s\" && cd \"%s\" && echo earlier >out.png && "
                  "{ \"%s/%s/cpu-reference\" --scene \"%s/scenes/benchmark.scene\" --size 1024x1024 "
                  "--output out.png; echo \"status $?\"; ls -A; cat out.png; }'",
                  folder, folder, root, test_build_dir(), root);
    assert_int_equal(r->exit_code, 0);
    assert_string_equal(r->err, "cpu-reference: error: out.png: writing the image failed: No space left on device\n");
    assert_string_equal(r->out, "status 1\nout.png\nearlier\n");
    remove_temporary_folder(folder);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(adler32_combine_matches_one_pass),
        cmocka_unit_test(chunks_follow_cores_rows_and_size),
        cmocka_unit_test(the_default_is_up_on_every_core),
        cmocka_unit_test(small_and_odd_sizes_decode_exactly),
        cmocka_unit_test(more_threads_than_rows),
        cmocka_unit_test(noise_decodes_exactly),
        cmocka_unit_test(files_decode_with_stb_and_python),
        cmocka_unit_test(an_8192x8192_image_decodes_exactly),
        cmocka_unit_test(the_benchmark_image_is_no_larger_than_before),
        cmocka_unit_test(nowhere_to_write_is_one_message),
        cmocka_unit_test(a_file_size_limit_keeps_the_earlier_file),
        cmocka_unit_test(cpu_reference_under_a_file_size_limit),
        cmocka_unit_test(a_full_disk_keeps_the_earlier_file),
    };
    return cmocka_run_group_tests_name("png", tests, NULL, NULL);
}
