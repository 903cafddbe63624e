#include "runtime/parallel_rows.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define MAX_THREADS 256

struct shared_rows {
    int height;
    parallel_row_fn render_row;
    void *context;
    atomic_int next_row;
};

struct worker {
    pthread_t thread;
    struct shared_rows *rows;
    unsigned long long rays;
};

static void *render_rows(void *argument)
{
    struct worker *worker = argument;
    struct shared_rows *rows = worker->rows;
    for (int j = atomic_fetch_add(&rows->next_row, 1); j < rows->height;
         j = atomic_fetch_add(&rows->next_row, 1))
        worker->rays += rows->render_row(j, rows->context);
    return NULL;
}

unsigned long long parallel_rows(int height, int threads, parallel_row_fn render_row,
                                 void *context)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    struct shared_rows rows;
    rows.height = height;
    rows.render_row = render_row;
    rows.context = context;
    atomic_init(&rows.next_row, 0);

    struct worker workers[MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; ++t) {
        workers[t].rows = &rows;
        workers[t].rays = 0;
        if (t > 0 && pthread_create(&workers[t].thread, NULL, render_rows, &workers[t]) != 0)
            break; /* fewer threads: the rows still all get done */
        started = t + 1;
    }
    render_rows(&workers[0]);
    unsigned long long rays = workers[0].rays;
    for (int t = 1; t < started; ++t) {
        pthread_join(workers[t].thread, NULL);
        rays += workers[t].rays;
    }
    return rays;
}
