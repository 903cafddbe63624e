/* build/cpu-reference: renders a scene on the CPU, the image every stage is checked against. */
#include <stdio.h>
#include <stdlib.h>

#include "raytrace/cpu_reference.h"
#include "runtime/options.h"
#include "runtime/report.h"

static const char *const program = "cpu-reference";

int main(int argc, char **argv)
{
    struct options options;
    char error[OPTIONS_ERROR_BYTES];
    if (options_parse(argc, argv, "--threads", &options, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s (see --help)\n", program, error);
        return 2;
    }
    if (options.help) {
        options_print_usage(stdout, program, "--threads", NULL, 0);
        return 0;
    }
    if (!options.output_path) {
        fprintf(stderr, "%s: error: --output FILE is required\n", program);
        return 2;
    }
    struct scene scene;
    if (scene_load(options.scene_path, &scene, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        return 2;
    }
    int width = options.width ? options.width : scene.width;
    int height = options.height ? options.height : scene.height;
    if (image_check_output_path(options.output_path, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        scene_free(&scene);
        return 2;
    }
    struct image image;
    if (image_alloc(&image, width, height)) {
        fprintf(stderr, "%s: error: out of host memory: %dx%d needs %zu bytes\n", program, width,
                height, (size_t)width * (size_t)height * 3);
        scene_free(&scene);
        return 2;
    }
    double start = timer_now_us();
    unsigned long long rays = cpu_reference_render(&scene, width, height, options.threads, &image);
    double elapsed = timer_now_us() - start;
    int status = 0;
    start = timer_now_us();
    if (image_write(options.output_path, &image, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        status = 1;
    } else {
        printf("%s: %s, %dx%d, %d spheres, %llu rays in %.0f us, written in %.0f us: %s\n",
               program, options.scene_path, width, height, scene.sphere_count, rays, elapsed,
               timer_now_us() - start,
               options.output_path);
    }
    image_free(&image);
    scene_free(&scene);
    return status;
}
