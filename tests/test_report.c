/* The phase report: the study's text layout and the CSV the runner reads. */
#include "test_support.h"

#include <time.h>

#include "runtime/report.h"

static struct report sample(void)
{
    struct report r;
    report_init(&r, "01-base");
    strcpy(r.gpu_name, "Test GPU");
    strcpy(r.gpu_uuid, "GPU-1234");
    r.width = 640;
    r.height = 480;
    r.spheres = 19;
    r.block_x = 16;
    r.block_y = 16;
    r.host_memory = "pageable";
    /* The study's seven phases; the build phase (index 3) is 0 and not timed, as in stages 01-21.
     */
    double phases[PHASE_COUNT] = {1000.7, 20.2, 300.9, 0, 4000.5, 500.1, 60.0, 7.99};
    for (int p = 0; p < PHASE_COUNT; ++p)
        r.phase_us[p] = phases[p];
    r.kernel_event_us = 3990.25;
    r.context_creation_us = 100000;
    r.bytes_to_device = 3686400;
    r.bytes_to_host = 3686400;
    r.rays_traced = 1000000;
    r.registers = 51;
    r.stack_frame_bytes = 2048;
    r.occupancy_percent = 50;
    r.shared_memory_bytes = 0;
    return r;
}

static char *render(const struct report *r, int csv)
{
    static char text[8192];
    FILE *out = fmemopen(text, sizeof text, "w");
    if (csv)
        report_print_csv(r, out);
    else
        report_print_text(r, out);
    fclose(out);
    return text;
}

static void total_is_the_sum_of_whole_microseconds(void **state)
{
    (void)state;
    struct report r = sample();
    /* floor of each: 1000 + 20 + 300 + 4000 + 500 + 60 + 7 */
    assert_true(report_total_us(&r) == 5887.0);
}

static void timer_advances_and_accumulates(void **state)
{
    (void)state;
    struct report r;
    report_init(&r, "x");
    double start = timer_now_us();
    nanosleep(&(struct timespec){0, 2000000}, NULL);
    report_phase_since(&r, PHASE_KERNEL, start);
    double first = r.phase_us[PHASE_KERNEL];
    assert_true(first >= 2000 && first < 200000);
    report_phase_since(&r, PHASE_KERNEL, timer_now_us() - 500);
    assert_true(r.phase_us[PHASE_KERNEL] >= first + 500);
}

static void text_report_has_the_study_rows(void **state)
{
    (void)state;
    struct report r = sample();
    const char *text = render(&r, 0);
    assert_non_null(strstr(text, "        1000 microseconds\t\tHost mem. alloc.\n"));
    assert_non_null(strstr(text, "        4000 microseconds\t\tCUDA kernel\n"));
    assert_non_null(strstr(text, "           7 microseconds\t\tHost mem. free\n"));
    assert_non_null(strstr(text, "        5887 microseconds\t\tTotal time\n"));
    assert_non_null(strstr(text, "3990.2 us  kernel (CUDA events)"));
    assert_non_null(strstr(text, "1000000 rays traced, 0.251 Grays/s in the kernel"));
    assert_non_null(strstr(text, "51 registers per thread, 2048 bytes stack frame, 50% theoretical occupancy"));
    assert_null(strstr(text, "writing"));
}

static void csv_has_a_fixed_header_and_one_line_per_metric(void **state)
{
    (void)state;
    struct report r = sample();
    const char *text = render(&r, 1);
    const char *header = "stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit\n";
    assert_ptr_equal(strstr(text, header), text);
    const char *prefix = "01-base,Test GPU,GPU-1234,640,480,19,16x16,pageable,";
    const char *rows[] = {"host_allocation,1000,us",    "device_allocation,20,us",
                          "host_to_device,300,us",      "kernel,4000,us",
                          "device_to_host,500,us",      "device_free,60,us",
                          "host_free,7,us",             "total,5887,us",
                          "kernel_events,3990.2,us",    "context_creation,100000,us",
                          "bytes_host_to_device,3686400,bytes", "bytes_device_to_host,3686400,bytes",
                          "rays_traced,1000000,rays",   "rays_per_second,250610864,rays/s",
                          "registers,51,registers",     "stack_frame,2048,bytes",
                          "shared_memory,0,bytes",      "theoretical_occupancy,50.0,percent"};
    const char *line = text + strlen(header);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
        char expected[256];
        snprintf(expected, sizeof expected, "%s%s\n", prefix, rows[k]);
        if (strncmp(line, expected, strlen(expected)) != 0)
            print_message("# line %zu: got '%.*s', want '%s'\n", k, (int)strcspn(line, "\n"), line, expected);
        assert_int_equal(strncmp(line, expected, strlen(expected)), 0);
        line += strlen(expected);
    }
    assert_string_equal(line, "");
}

static void image_write_time_appears_only_when_an_image_was_written(void **state)
{
    (void)state;
    struct report r = sample();
    r.image_write_us = 1234;
    r.image_path = "out.png";
    assert_non_null(strstr(render(&r, 0), "1234 us  writing out.png (not in the total)"));
    assert_non_null(strstr(render(&r, 1), "pageable,image_write,1234,us\n"));
}

/* The acceleration structure's build is a phase of its own, reported (text and CSV) only by a
 * stage that times it, and counted in the total. */
static void the_build_phase_only_where_timed(void **state)
{
    (void)state;
    struct report r = sample();
    assert_null(strstr(render(&r, 0), "Acceleration build"));
    assert_null(strstr(render(&r, 1), ",build,"));
    report_phase_since(&r, PHASE_BUILD, timer_now_us() - 250);
    assert_true(r.build_timed);
    assert_non_null(strstr(render(&r, 0), "microseconds\t\tAcceleration build"));
    const char *csv = render(&r, 1);
    const char *build = strstr(csv, ",build,");
    assert_non_null(build);
    /* In the phases' order: after the copy to the device, before the kernel. */
    assert_true(build > strstr(csv, ",host_to_device,") && build < strstr(csv, ",kernel,"));
    assert_true(report_total_us(&r) >= 5887.0 + 250);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_build_phase_only_where_timed),
        cmocka_unit_test(total_is_the_sum_of_whole_microseconds),
        cmocka_unit_test(timer_advances_and_accumulates),
        cmocka_unit_test(text_report_has_the_study_rows),
        cmocka_unit_test(csv_has_a_fixed_header_and_one_line_per_metric),
        cmocka_unit_test(image_write_time_appears_only_when_an_image_was_written),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
