/* The frame's way to a .ppm file as the study wrote it: a text PPM, "P3", its width and height
 * and 255, then one line "R G B" a pixel, in decimal.
 *
 * TEXT_IMAGE_BUFFERED 1 (the default), the study's base: each pixel's line is made as a
 * std::string (std::to_string of each channel, joined by spaces) and pushed onto a
 * std::vector<std::string>, one string a pixel; once every line is made, std::copy sends the
 * vector through a std::ostream_iterator, which writes each string and a newline into the file's
 * std::ofstream. TEXT_IMAGE_BUFFERED 0, the study's stage 2: no vector; each pixel's three numbers
 * are written straight into the stream with <<.
 *
 * A channel's number is SPEC.md's output rule (image_channel_from_float), what the study's (int)
 * cast gives for every value from 0 to 255: the pixels are the binary file's. The write is timed
 * as the study timed it, from the header to the file closed; the vector is freed after the time
 * is taken (the study's lived until its program ended). The file is written to a temporary name
 * beside the output and renamed into place, as every stage's image is. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "image/frame_out.h"
#include "image/image.h"

#ifndef TEXT_IMAGE_BUFFERED
#define TEXT_IMAGE_BUFFERED 1
#endif

/* Writes the width x height frame rgb (3 floats a pixel) to path as a text PPM and records the
 * write in report, or says why it could not in one line and exits 1. */
static void text_image_write_or_exit(struct report *report, const char *path, const float *rgb,
                                     int width, int height)
{
    char temporary[4096];
    int n = snprintf(temporary, sizeof temporary, "%s.partial-%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof temporary) {
        fprintf(stderr, "%s: error: %.200s...: output path too long\n", cuda_check_program, path);
        exit(1);
    }
    const size_t pixels = (size_t)width * (size_t)height;
    std::vector<std::string> lines;

    /* Past the file-size limit (ulimit -f) the write fails with EFBIG, as common/image's does,
     * instead of ending the process with SIGXFSZ and leaving the temporary file. */
    void (*previous_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    double start = timer_now_us();
    errno = 0;
    std::ofstream file(temporary);
    int failed = file.is_open() ? 0 : (errno ? errno : EIO);
    file << "P3" << "\n" << width << " " << height << "\n" << "255\n";
#if TEXT_IMAGE_BUFFERED
    for (size_t i = 0; i < pixels; ++i) {
        const float *pixel = rgb + 3 * i;
        lines.push_back(std::to_string((int)image_channel_from_float(pixel[0])) + " " +
                             std::to_string((int)image_channel_from_float(pixel[1])) + " " +
                             std::to_string((int)image_channel_from_float(pixel[2])));
    }
    std::ostream_iterator<std::string> to_file(file, "\n");
    std::copy(lines.begin(), lines.end(), to_file);
#else
    for (size_t i = 0; i < pixels; ++i) {
        const float *pixel = rgb + 3 * i;
        file << (int)image_channel_from_float(pixel[0]) << " "
             << (int)image_channel_from_float(pixel[1]) << " "
             << (int)image_channel_from_float(pixel[2]) << "\n";
    }
#endif
    errno = 0;
    file.close();
    if (!failed && file.fail())
        failed = errno ? errno : EIO;
    if (previous_xfsz != SIG_ERR)
        signal(SIGXFSZ, previous_xfsz);
    if (!failed && rename(temporary, path) != 0)
        failed = errno;
    if (failed) {
        remove(temporary);
        fprintf(stderr, "%s: error: %s: writing the image failed: %s\n", cuda_check_program, path,
                strerror(failed));
        exit(1);
    }
    frame_written(report, path, start);
} /* lines is freed here, after the write's time was taken */

/* Instead of render_job_frame_ready(): a .ppm is written as text (above), a .png as stage 02
 * writes it. */
static void text_image_frame_ready(struct render_job *job, const float *rgb)
{
    const char *path = job->output_path;
    size_t length = path ? strlen(path) : 0;
    if (!path || length < 4 || strcmp(path + length - 4, ".ppm") != 0) {
        render_job_frame_ready(job, rgb);
        return;
    }
    job->report->host_memory = gpu_host_memory_kind(rgb);
    text_image_write_or_exit(job->report, path, rgb, job->width, job->height);
}

/* Stage 01's host half hands the frame to this stage's writer. */
#define FRAME_READY text_image_frame_ready
