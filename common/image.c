#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>
#include <stb_image_write.h>

int image_alloc(struct image *image, int width, int height)
{
    image->width = width;
    image->height = height;
    image->rgb = malloc((size_t)width * (size_t)height * 3);
    return image->rgb ? 0 : -1;
}

void image_free(struct image *image)
{
    free(image->rgb);
    image->rgb = NULL;
}

unsigned char image_channel_from_float(float value)
{
    if (!(value > 0.0f))
        return 0;
    if (value >= 255.0f)
        return 255;
    return (unsigned char)value;
}

void image_from_float_rgb(struct image *image, const float *rgb)
{
    size_t count = (size_t)image->width * (size_t)image->height * 3;
    for (size_t i = 0; i < count; ++i)
        image->rgb[i] = image_channel_from_float(rgb[i]);
}

static const char *extension_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

static int temporary_beside(const char *path, char *temporary, size_t size)
{
    int n = snprintf(temporary, size, "%s.partial-%ld", path, (long)getpid());
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int image_check_output_path(const char *path, char *error, size_t error_size)
{
    const char *extension = extension_of(path);
    if (strcmp(extension, ".png") != 0 && strcmp(extension, ".ppm") != 0) {
        snprintf(error, error_size, "%s: output must end in .png or .ppm", path);
        return -1;
    }
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        snprintf(error, error_size, "%s: output is a directory", path);
        return -1;
    }
    char temporary[4096];
    if (temporary_beside(path, temporary, sizeof temporary)) {
        snprintf(error, error_size, "%.200s...: output path too long", path);
        return -1;
    }
    FILE *probe = fopen(temporary, "wb");
    if (!probe) {
        snprintf(error, error_size, "%s: cannot write the output there: %s", path, strerror(errno));
        return -1;
    }
    fclose(probe);
    remove(temporary);
    return 0;
}

static int write_ppm(FILE *file, const struct image *image)
{
    size_t bytes = (size_t)image->width * (size_t)image->height * 3;
    return fprintf(file, "P6\n%d %d\n255\n", image->width, image->height) > 0 &&
                   fwrite(image->rgb, 1, bytes, file) == bytes
               ? 0
               : -1;
}

struct png_sink {
    FILE *file;
    int failed;
};

static void write_to_sink(void *context, void *data, int size)
{
    struct png_sink *sink = context;
    if (fwrite(data, 1, (size_t)size, sink->file) != (size_t)size)
        sink->failed = 1;
}

int image_write(const char *path, const struct image *image, char *error, size_t error_size)
{
    char temporary[4096];
    if (temporary_beside(path, temporary, sizeof temporary)) {
        snprintf(error, error_size, "%.200s...: output path too long", path);
        return -1;
    }
    FILE *file = fopen(temporary, "wb");
    if (!file) {
        snprintf(error, error_size, "%s: cannot write the output: %s", path, strerror(errno));
        return -1;
    }
    int failed;
    errno = 0;
    if (strcmp(extension_of(path), ".ppm") == 0) {
        failed = write_ppm(file, image);
    } else {
        struct png_sink sink = {file, 0};
        failed = !stbi_write_png_to_func(write_to_sink, &sink, image->width, image->height, 3,
                                         image->rgb, image->width * 3) ||
                 sink.failed;
    }
    failed |= ferror(file);
    failed |= fclose(file) != 0;
    if (failed || rename(temporary, path) != 0) {
        int saved = errno;
        remove(temporary);
        snprintf(error, error_size, "%s: writing the image failed: %s", path,
                 saved ? strerror(saved) : "encoder error");
        return -1;
    }
    return 0;
}

int image_read(const char *path, struct image *image, char *error, size_t error_size)
{
    int channels;
    image->rgb = stbi_load(path, &image->width, &image->height, &channels, 3);
    if (!image->rgb) {
        snprintf(error, error_size, "%s: cannot read image: %s", path, stbi_failure_reason());
        return -1;
    }
    return 0;
}

int image_compare(const struct image *a, const struct image *b, struct image_difference *diff)
{
    memset(diff, 0, sizeof *diff);
    if (a->width != b->width || a->height != b->height)
        return -1;
    diff->total_pixels = (long long)a->width * a->height;
    for (long long p = 0; p < diff->total_pixels; ++p) {
        int pixel_differs = 0;
        for (int c = 0; c < 3; ++c) {
            int delta = abs((int)a->rgb[p * 3 + c] - (int)b->rgb[p * 3 + c]);
            if (delta) {
                pixel_differs = 1;
                if (delta > diff->largest_channel_difference)
                    diff->largest_channel_difference = delta;
            }
        }
        diff->differing_pixels += pixel_differs;
    }
    return 0;
}
