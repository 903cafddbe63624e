#include "pathtrace/pt_reference.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define MAX_THREADS 256

struct shared_work {
    const struct pt_world *world;
    int samples;
    unsigned long long *sums;
    atomic_int next_row;
};

struct worker {
    pthread_t thread;
    struct shared_work *work;
    unsigned long long rays;
};

static void *render_rows(void *argument)
{
    struct worker *worker = argument;
    struct shared_work *work = worker->work;
    const struct pt_world *world = work->world;
    for (int j = atomic_fetch_add(&work->next_row, 1); j < world->height;
         j = atomic_fetch_add(&work->next_row, 1)) {
        for (int i = 0; i < world->width; ++i) {
            unsigned long long *sum = work->sums + ((size_t)j * (size_t)world->width + (size_t)i) * 3;
            for (int s = 0; s < work->samples; ++s) {
                int rays;
                struct spec_vec3 c = pt_trace_sample(world, i, j, (unsigned)s, &rays);
                sum[0] += pt_fixed(c.x);
                sum[1] += pt_fixed(c.y);
                sum[2] += pt_fixed(c.z);
                worker->rays += (unsigned long long)rays;
            }
        }
    }
    return NULL;
}

unsigned long long pt_reference_render(const struct pt_world *world, int samples, int threads,
                                       unsigned long long *sums)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    struct shared_work work;
    work.world = world;
    work.samples = samples;
    work.sums = sums;
    atomic_init(&work.next_row, 0);
    struct worker workers[MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; ++t) {
        workers[t].work = &work;
        workers[t].rays = 0;
        if (t > 0 && pthread_create(&workers[t].thread, NULL, render_rows, &workers[t]) != 0)
            break;
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
