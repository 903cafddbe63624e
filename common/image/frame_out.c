/* frame_out.h: a finished frame's last steps on the host, shared by both tracks. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/cuda_check.h"
#include "image/frame_out.h"
#include "runtime/gpu.h"

void frame_image_alloc_or_exit(struct image *image, int width, int height, const char *path)
{
    if (image_alloc(image, width, height)) {
        fprintf(stderr, "%s: error: out of host memory for the 8-bit image of %s\n",
                cuda_check_program, path);
        exit(1);
    }
}

void frame_write_or_exit(const char *path, const struct image *image)
{
    char error[IMAGE_ERROR_BYTES];
    if (image_write(path, image, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", cuda_check_program, error);
        exit(1);
    }
}

void frame_written(struct report *report, const char *path, double start_us)
{
    report->image_write_us = timer_now_us() - start_us;
    report->image_path = path;
}

void frame_ready_rgb8(struct report *report, const char *path, int width, int height,
                      const unsigned char *rgb)
{
    report->host_memory = gpu_host_memory_kind(rgb);
    if (!path)
        return;
    double start = timer_now_us();
    struct image image = {width, height, (unsigned char *)rgb}; /* written, not freed */
    frame_write_or_exit(path, &image);
    frame_written(report, path, start);
}
