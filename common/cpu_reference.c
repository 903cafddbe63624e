#include "cpu_reference.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define MAX_THREADS 256

struct shared_work {
    struct spec_world world;
    int width, height;
    struct image *image;
    atomic_int next_row; /* rows are handed out one at a time: the floor rows cost more */
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
    for (int j = atomic_fetch_add(&work->next_row, 1); j < work->height;
         j = atomic_fetch_add(&work->next_row, 1)) {
        unsigned char *row = work->image->rgb + (size_t)j * (size_t)work->width * 3;
        for (int i = 0; i < work->width; ++i) {
            int rays;
            struct spec_vec3 colour =
                spec_trace_pixel(&work->world, i, j, work->width, work->height, &rays);
            row[i * 3 + 0] = image_channel_from_float(colour.x);
            row[i * 3 + 1] = image_channel_from_float(colour.y);
            row[i * 3 + 2] = image_channel_from_float(colour.z);
            worker->rays += (unsigned long long)rays;
        }
    }
    return NULL;
}

unsigned long long cpu_reference_render(const struct scene *scene, int width, int height,
                                        int threads, struct image *image)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;

    struct shared_work work;
    work.world = scene_world(scene);
    work.width = width;
    work.height = height;
    work.image = image;
    atomic_init(&work.next_row, 0);

    struct worker workers[MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; ++t) {
        workers[t].work = &work;
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

struct spec_vec3 cpu_reference_pixel(const struct scene *scene, int width, int height, int i, int j)
{
    struct spec_world world = scene_world(scene);
    int rays;
    return spec_trace_pixel(&world, i, j, width, height, &rays);
}
