/* Phase timers and the report every stage prints (text like the study's, or CSV). */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum phase {
    PHASE_HOST_ALLOCATION,
    PHASE_DEVICE_ALLOCATION,
    PHASE_HOST_TO_DEVICE,
    PHASE_BUILD, /* an acceleration structure's build (stages 22 on); reported only when timed */
    PHASE_KERNEL,
    PHASE_DEVICE_TO_HOST,
    PHASE_DEVICE_FREE,
    PHASE_HOST_FREE,
    PHASE_COUNT
};

/* A named measurement beyond the fixed ones: a part of a phase (e.g. "host_touch" inside the host
 * allocation) or a stage's own metric (e.g. "steady_frame"). Names are CSV-safe literals. */
#define REPORT_MAX_EXTRAS 24 /* stage 42 reports 15 */
struct report_extra {
    const char *name;
    double value;
    const char *unit;
    int phase; /* the phase it is a part of, or -1 */
};

struct report {
    const char *stage;
    const char *scene_path; /* the scene rendered, as the program found it */
    char gpu_name[256];
    char gpu_uuid[48];
    char gpu_summary[640];
    int width, height, spheres;
    int block_x, block_y;
    const char *host_memory; /* "pageable", "pinned" or "unknown" */

    double phase_us[PHASE_COUNT];
    int build_timed; /* whether the stage timed PHASE_BUILD: only then is it reported */
    double kernel_event_us;
    double context_creation_us;
    double image_write_us; /* < 0: no image written */
    const char *image_path;

    unsigned long long bytes_to_device, bytes_to_host;
    unsigned long long rays_traced;
    int registers, stack_frame_bytes;
    long long shared_memory_bytes; /* per block, static and dynamic */
    double occupancy_percent;

    struct report_extra extras[REPORT_MAX_EXTRAS];
    int extra_count;
};

void report_init(struct report *report, const char *stage);

/* Microseconds on a monotonic CPU clock, the study's kind of timer. */
double timer_now_us(void);

/* Adds the time since start_us to a phase (a phase may be timed in several pieces). */
void report_phase_since(struct report *report, enum phase phase, double start_us);

/* As report_phase_since, and also accumulates the time under a part's name, so a phase made of
 * several steps shows each (the phase stays the sum the total is made of). Returns the clock's
 * reading it stopped at, where the next step starts. */
double report_part_since(struct report *report, enum phase phase, const char *part,
                         double start_us);

/* Sets a stage's own metric (replaces an earlier value of the same name). */
void report_metric(struct report *report, const char *name, double value, const char *unit);

double report_total_us(const struct report *report);
const char *report_phase_name(enum phase phase); /* CSV name: "host_allocation", ... */
const char *report_phase_title(enum phase phase); /* the study's row title */

void report_print_text(const struct report *report, FILE *out);
void report_print_csv_header(FILE *out);
void report_print_csv(const struct report *report, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
