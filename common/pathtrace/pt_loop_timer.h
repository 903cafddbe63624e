/* The render loop's timer (common/pathtrace/SPEC.md section 5): the `kernel` phase on the CPU
 * clock, in named parts where a stage does more than launch kernels (copies, host accumulation),
 * and `kernel_events`, the same loop on the GPU's clock. */
#ifndef PT_LOOP_TIMER_H
#define PT_LOOP_TIMER_H

#include <cuda_runtime_api.h>

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pt_loop_timer {
    cudaEvent_t start, stop;
    double piece_start_us;
};

/* Before the loop's first launch. */
void pt_loop_start(struct pt_loop_timer *timer);
/* The time since the last start, part or piece as `part` of the kernel phase. */
void pt_loop_part(struct pt_loop_timer *timer, struct report *report, const char *part);
/* After the loop: waits for the GPU, adds what is left to the kernel phase (as `part` when not
 * NULL) and sets report->kernel_event_us. */
void pt_loop_stop(struct pt_loop_timer *timer, struct report *report, const char *part);

#ifdef __cplusplus
}
#endif

#endif
