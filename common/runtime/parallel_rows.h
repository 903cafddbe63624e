/* Rows of an image rendered on every core: what both CPU references (cpu_reference.c,
 * pathtrace/pt_reference.c) share. Rows are handed out one at a time from an atomic counter,
 * because their costs differ (the floor's rows cost more than the sky's). */
#ifndef PARALLEL_ROWS_H
#define PARALLEL_ROWS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Renders one row; returns the rays it traced. */
typedef unsigned long long (*parallel_row_fn)(int row, void *context);

/* Calls render_row for rows 0..height-1 on `threads` threads (0: one per core; fewer when a
 * thread cannot be started), the calling thread among them. Returns the sum of what the calls
 * returned. */
unsigned long long parallel_rows(int height, int threads, parallel_row_fn render_row,
                                 void *context);

#ifdef __cplusplus
}
#endif

#endif
