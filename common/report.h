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
    PHASE_KERNEL,
    PHASE_DEVICE_TO_HOST,
    PHASE_DEVICE_FREE,
    PHASE_HOST_FREE,
    PHASE_COUNT
};

struct report {
    const char *stage;
    char gpu_name[256];
    char gpu_uuid[48];
    char gpu_summary[640];
    int width, height, spheres;
    int block_x, block_y;
    const char *host_memory; /* "pageable", "pinned" or "unknown" */

    double phase_us[PHASE_COUNT];
    double kernel_event_us;
    double context_creation_us;
    double image_write_us; /* < 0: no image written */
    const char *image_path;

    unsigned long long bytes_to_device, bytes_to_host;
    unsigned long long rays_traced;
    int registers, stack_frame_bytes;
    long long shared_memory_bytes; /* per block, static and dynamic */
    double occupancy_percent;
};

void report_init(struct report *report, const char *stage);

/* Microseconds on a monotonic CPU clock, the study's kind of timer. */
double timer_now_us(void);

/* Adds the time since start_us to a phase (a phase may be timed in several pieces). */
void report_phase_since(struct report *report, enum phase phase, double start_us);

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
