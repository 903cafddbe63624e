/* build/compare-images A B: how many pixels differ, and by how much at most. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

static const char *const program = "compare-images";

static void usage(FILE *out)
{
    fprintf(out, "usage: %s A B [--max-differing-percent P]\n"
                 "  prints the differing pixels of two images (PNG or PPM) and the largest\n"
                 "  channel difference; exits 0 when at most P%% of pixels differ (default 0),\n"
                 "  1 when more do, 2 on error\n",
            program);
}

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int path_count = 0;
    double max_percent = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--max-differing-percent") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: error: option --max-differing-percent needs a value\n", program);
                return 2;
            }
            if (argv[i + 1][0] == '\0') {
                fprintf(stderr,
                        "%s: error: option --max-differing-percent needs a value, not an empty "
                        "one\n",
                        program);
                return 2;
            }
            /* strtod reads "" as 0 with nothing left over, and skips leading blanks and a sign:
             * a percentage here starts with a digit or a point, and strtod reads all of it. */
            const char *text = argv[++i];
            char *end;
            errno = 0;
            max_percent = strtod(text, &end);
            if ((*text != '.' && (*text < '0' || *text > '9')) || *end || errno ||
                !(max_percent >= 0 && max_percent <= 100)) {
                fprintf(stderr, "%s: error: '%s' is not a percentage\n", program, argv[i]);
                return 2;
            }
        } else if (argv[i][0] != '-' && path_count < 2) {
            paths[path_count++] = argv[i];
        } else {
            fprintf(stderr, "%s: error: %s '%s' (see --help)\n", program,
                    argv[i][0] == '-' ? "unknown option" : "a third image", argv[i]);
            return 2;
        }
    }
    if (path_count != 2) {
        fprintf(stderr, "%s: error: two images are needed, %d given (see --help)\n", program,
                path_count);
        return 2;
    }
    struct image images[2];
    char error[IMAGE_ERROR_BYTES];
    for (int k = 0; k < 2; ++k) {
        if (image_read(paths[k], &images[k], error, sizeof error)) {
            fprintf(stderr, "%s: error: %s\n", program, error);
            if (k)
                image_free(&images[0]);
            return 2;
        }
    }
    struct image_difference diff;
    int status;
    if (image_compare(&images[0], &images[1], &diff)) {
        fprintf(stderr, "%s: error: sizes differ: %dx%d and %dx%d\n", program, images[0].width,
                images[0].height, images[1].width, images[1].height);
        status = 2;
    } else {
        double percent = 100.0 * (double)diff.differing_pixels / (double)diff.total_pixels;
        printf("differing pixels: %lld of %lld (%.6f%%), largest channel difference: %d\n",
               diff.differing_pixels, diff.total_pixels, percent, diff.largest_channel_difference);
        status = percent <= max_percent ? 0 : 1;
    }
    image_free(&images[0]);
    image_free(&images[1]);
    return status;
}
