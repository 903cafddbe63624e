/* build/pt-reference: renders a path-tracing scene on the CPU, the image every stage of the
 * track is checked against (SPEC-PATH-TRACING.md), with the estimator the stage names
 * (--estimator path, nee, light-pool or reservoirs; section 6). */
#include <stdio.h>
#include <stdlib.h>

#include "image/image.h"
#include "runtime/options.h"
#include "pathtrace/pt_reference.h"
#include "pathtrace/pt_reservoirs.h" /* PT_ESTIMATOR_RESERVOIRS */
#include "runtime/report.h"

static const char *const program = "pt-reference";

int main(int argc, char **argv)
{
    const char *accepted = "--threads --samples --estimator";
    struct options options;
    char error[OPTIONS_ERROR_BYTES];
    if (options_parse(argc, argv, accepted, &options, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s (see --help)\n", program, error);
        return 2;
    }
    if (options.help) {
        options_print_usage(stdout, program, accepted, NULL, 0);
        return 0;
    }
    int estimator = options.estimator ? pt_estimator_from_name(options.estimator)
                                      : PT_ESTIMATOR_PATH;
    if (estimator < 0) {
        fprintf(stderr,
                "%s: error: --estimator '%.40s': no such estimator; path, nee, light-pool or "
                "reservoirs (see --help)\n",
                program, options.estimator);
        return 2;
    }
    if (!options.output_path) {
        fprintf(stderr, "%s: error: --output FILE is required\n", program);
        return 2;
    }
    struct pt_scene scene;
    if (pt_scene_load(options.scene_path, &scene, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        return 2;
    }
    int width = options.width ? options.width : scene.width;
    int height = options.height ? options.height : scene.height;
    int samples = options.samples ? options.samples : scene.samples;
    if (image_check_output_path(options.output_path, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        pt_scene_free(&scene);
        return 2;
    }
    size_t channels = (size_t)width * (size_t)height * 3;
    /* the sums, the 8-bit image and what the estimator keeps per pixel (reservoirs) */
    size_t needed = channels * (sizeof(unsigned long long) + 1) +
                    (size_t)width * (size_t)height * pt_reference_pixel_bytes(estimator);
    unsigned long long *sums = calloc(channels, sizeof *sums);
    struct image image;
    if (!sums || image_alloc(&image, width, height)) {
        fprintf(stderr, "%s: error: out of host memory: %dx%d needs %zu bytes\n", program, width,
                height, needed);
        free(sums);
        pt_scene_free(&scene);
        return 2;
    }
    struct pt_world world = pt_scene_world(&scene, width, height);
    double start = timer_now_us();
    unsigned long long rays =
        pt_reference_render(&world, estimator, samples, options.threads, sums);
    double elapsed = timer_now_us() - start;
    if (rays == PT_REFERENCE_OUT_OF_MEMORY) {
        fprintf(stderr, "%s: error: out of host memory: %dx%d needs %zu bytes\n", program, width,
                height, needed);
        image_free(&image);
        free(sums);
        pt_scene_free(&scene);
        return 2;
    }
    for (size_t c = 0; c < channels; ++c)
        image.rgb[c] = pt_pixel_channel(sums[c], samples);
    int status = 0;
    if (image_write(options.output_path, &image, error, sizeof error)) {
        fprintf(stderr, "%s: error: %s\n", program, error);
        status = 1;
    } else {
        printf("%s: %s, %dx%d, %d spheres, %d samples, estimator %s, %llu rays in %.0f us "
               "(%.2f M rays/s): %s\n",
               program, options.scene_path, width, height, scene.sphere_count, samples,
               pt_estimator_name(estimator), rays, elapsed, elapsed > 0 ? rays / elapsed : 0,
               options.output_path);
    }
    image_free(&image);
    free(sums);
    pt_scene_free(&scene);
    return status;
}
