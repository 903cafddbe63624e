#include "pathtrace/pt_loop_timer.h"

#include "cuda_check.h"

void pt_loop_start(struct pt_loop_timer *timer)
{
    CUDA_CHECK(cudaEventCreate(&timer->start));
    CUDA_CHECK(cudaEventCreate(&timer->stop));
    timer->piece_start_us = timer_now_us();
    CUDA_CHECK(cudaEventRecord(timer->start, 0));
}

void pt_loop_part(struct pt_loop_timer *timer, struct report *report, const char *part)
{
    double now = timer_now_us();
    report_part_since(report, PHASE_KERNEL, part, timer->piece_start_us);
    timer->piece_start_us = now;
}

void pt_loop_stop(struct pt_loop_timer *timer, struct report *report, const char *part)
{
    CUDA_CHECK(cudaEventRecord(timer->stop, 0));
    CUDA_CHECK(cudaEventSynchronize(timer->stop));
    if (part)
        report_part_since(report, PHASE_KERNEL, part, timer->piece_start_us);
    else
        report_phase_since(report, PHASE_KERNEL, timer->piece_start_us);
    float milliseconds = 0;
    CUDA_CHECK(cudaEventElapsedTime(&milliseconds, timer->start, timer->stop));
    report->kernel_event_us = milliseconds * 1000.0;
    CUDA_CHECK(cudaEventDestroy(timer->start));
    CUDA_CHECK(cudaEventDestroy(timer->stop));
}
