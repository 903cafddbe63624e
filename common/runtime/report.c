#include "runtime/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const phase_names[PHASE_COUNT] = {
    "host_allocation", "device_allocation", "host_to_device", "build", "kernel",
    "device_to_host",  "device_free",       "host_free",
};

static const char *const phase_titles[PHASE_COUNT] = {
    "Host mem. alloc.",   "Device mem. alloc.", "HtoD mem. transfer", "Acceleration build",
    "CUDA kernel",        "DtoH mem. transfer", "Device mem. free",   "Host mem. free",
};

/* Whether a phase is in the report: all of the study's, and the build where a stage has one. */
static int phase_reported(const struct report *report, int phase)
{
    return phase != PHASE_BUILD || report->build_timed;
}

void report_init(struct report *report, const char *stage)
{
    memset(report, 0, sizeof *report);
    report->stage = stage;
    report->host_memory = "unknown";
    report->image_write_us = -1;
    report->kernel_event_us = -1;
    report->occupancy_percent = -1;
    report->registers = -1;
    report->stack_frame_bytes = -1;
    report->shared_memory_bytes = -1;
    strcpy(report->gpu_name, "none");
    strcpy(report->gpu_uuid, "none");
}

double timer_now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e6 + (double)now.tv_nsec / 1e3;
}

void report_phase_since(struct report *report, enum phase phase, double start_us)
{
    report->phase_us[phase] += timer_now_us() - start_us;
    report->build_timed |= phase == PHASE_BUILD;
}

static struct report_extra *extra_named(struct report *report, const char *name)
{
    for (int k = 0; k < report->extra_count; ++k)
        if (strcmp(report->extras[k].name, name) == 0)
            return &report->extras[k];
    if (report->extra_count == REPORT_MAX_EXTRAS) {
        fprintf(stderr, "report: more than %d extra metrics (%s); raise REPORT_MAX_EXTRAS\n",
                REPORT_MAX_EXTRAS, name);
        exit(1);
    }
    struct report_extra *extra = &report->extras[report->extra_count++];
    extra->name = name;
    extra->value = 0;
    extra->unit = "us";
    extra->phase = -1;
    return extra;
}

double report_part_since(struct report *report, enum phase phase, const char *part,
                         double start_us)
{
    double now = timer_now_us();
    double elapsed = now - start_us;
    report->phase_us[phase] += elapsed;
    report->build_timed |= phase == PHASE_BUILD;
    struct report_extra *extra = extra_named(report, part);
    extra->value += elapsed;
    extra->unit = "us";
    extra->phase = (int)phase;
    return now;
}

void report_metric(struct report *report, const char *name, double value, const char *unit)
{
    struct report_extra *extra = extra_named(report, name);
    extra->value = value;
    extra->unit = unit;
    extra->phase = -1;
}

double report_total_us(const struct report *report)
{
    double total = 0;
    for (int p = 0; p < PHASE_COUNT; ++p)
        total += floor(report->phase_us[p]);
    return total;
}

const char *report_phase_name(enum phase phase)
{
    return phase_names[phase];
}

const char *report_phase_title(enum phase phase)
{
    return phase_titles[phase];
}

static double rays_per_second(const struct report *report)
{
    return report->kernel_event_us > 0 ? (double)report->rays_traced / (report->kernel_event_us * 1e-6)
                                       : 0;
}

void report_print_text(const struct report *r, FILE *out)
{
    fprintf(out, "%s on %s\n", r->stage, r->gpu_summary[0] ? r->gpu_summary : r->gpu_name);
    if (r->scene_path)
        fprintf(out, "scene %s\n", r->scene_path);
    fprintf(out, "image %dx%d, %d spheres, %dx%d threads per block, %s host memory\n\n", r->width,
            r->height, r->spheres, r->block_x, r->block_y, r->host_memory);
    for (int p = 0; p < PHASE_COUNT; ++p)
        if (phase_reported(r, p))
            fprintf(out, "%12.0f microseconds\t\t%s\n", floor(r->phase_us[p]), phase_titles[p]);
    fprintf(out, "%12.0f microseconds\t\tTotal time\n\n", report_total_us(r));
    for (int k = 0; k < r->extra_count; ++k) {
        const struct report_extra *e = &r->extras[k];
        if (e->phase >= 0)
            fprintf(out, "%14.0f us  %s (part of %s)\n", floor(e->value), e->name,
                    phase_titles[e->phase]);
        else
            fprintf(out, "%14.1f %s  %s\n", e->value, e->unit, e->name);
    }
    fprintf(out, "%14.1f us  kernel (CUDA events)\n", r->kernel_event_us);
    fprintf(out, "%14.0f us  CUDA context creation (before the first phase, not in the total)\n",
            floor(r->context_creation_us));
    if (r->image_write_us >= 0)
        fprintf(out, "%14.0f us  writing %s (not in the total)\n", floor(r->image_write_us),
                r->image_path);
    fprintf(out, "%14llu bytes copied host to device\n", r->bytes_to_device);
    fprintf(out, "%14llu bytes copied device to host\n", r->bytes_to_host);
    fprintf(out, "%14llu rays traced, %.3f Grays/s in the kernel\n", r->rays_traced,
            rays_per_second(r) / 1e9);
    fprintf(out, "%14d registers per thread, %d bytes stack frame, %.0f%% theoretical occupancy\n",
            r->registers, r->stack_frame_bytes, r->occupancy_percent);
    fprintf(out, "%14lld bytes of shared memory per block\n", r->shared_memory_bytes);
}

void report_print_csv_header(FILE *out)
{
    fputs("stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit\n", out);
}

static void csv_row(const struct report *r, FILE *out, const char *metric, const char *value_format,
                    double value, const char *unit)
{
    fprintf(out, "%s,%s,%s,%d,%d,%d,%dx%d,%s,%s,", r->stage, r->gpu_name, r->gpu_uuid, r->width,
            r->height, r->spheres, r->block_x, r->block_y, r->host_memory, metric);
    fprintf(out, value_format, value);
    fprintf(out, ",%s\n", unit);
}

void report_print_csv(const struct report *r, FILE *out)
{
    report_print_csv_header(out);
    for (int p = 0; p < PHASE_COUNT; ++p)
        if (phase_reported(r, p))
            csv_row(r, out, phase_names[p], "%.0f", floor(r->phase_us[p]), "us");
    csv_row(r, out, "total", "%.0f", report_total_us(r), "us");
    csv_row(r, out, "kernel_events", "%.1f", r->kernel_event_us, "us");
    csv_row(r, out, "context_creation", "%.0f", floor(r->context_creation_us), "us");
    if (r->image_write_us >= 0)
        csv_row(r, out, "image_write", "%.0f", floor(r->image_write_us), "us");
    csv_row(r, out, "bytes_host_to_device", "%.0f", (double)r->bytes_to_device, "bytes");
    csv_row(r, out, "bytes_device_to_host", "%.0f", (double)r->bytes_to_host, "bytes");
    csv_row(r, out, "rays_traced", "%.0f", (double)r->rays_traced, "rays");
    csv_row(r, out, "rays_per_second", "%.0f", rays_per_second(r), "rays/s");
    csv_row(r, out, "registers", "%.0f", (double)r->registers, "registers");
    csv_row(r, out, "stack_frame", "%.0f", (double)r->stack_frame_bytes, "bytes");
    csv_row(r, out, "shared_memory", "%.0f", (double)r->shared_memory_bytes, "bytes");
    csv_row(r, out, "theoretical_occupancy", "%.1f", r->occupancy_percent, "percent");
    for (int k = 0; k < r->extra_count; ++k)
        csv_row(r, out, r->extras[k].name, r->extras[k].phase >= 0 ? "%.0f" : "%.1f",
                r->extras[k].phase >= 0 ? floor(r->extras[k].value) : r->extras[k].value,
                r->extras[k].unit);
}
