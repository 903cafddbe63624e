#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, MAP_ANONYMOUS */
#include "runtime/host_pages.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define TOUCH_STRIDE 4096
#define MAX_TOUCH_THREADS 256

void *host_pages_map(size_t bytes, size_t *mapped_bytes)
{
    size_t pages = (bytes + HOST_PAGES_HUGE_BYTES - 1) / HOST_PAGES_HUGE_BYTES;
    size_t length = pages * HOST_PAGES_HUGE_BYTES;
    void *memory = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(memory, length, MADV_HUGEPAGE); /* a hint; failure leaves 4 KiB pages */
#endif
    *mapped_bytes = length;
    return memory;
}

void host_pages_unmap(void *memory, size_t mapped_bytes)
{
    if (memory)
        munmap(memory, mapped_bytes);
}

struct touch_share {
    volatile unsigned char *begin;
    size_t bytes;
};

static void *touch_share(void *argument)
{
    struct touch_share *share = argument;
    for (size_t offset = 0; offset < share->bytes; offset += TOUCH_STRIDE)
        share->begin[offset] = 0;
    return NULL;
}

void host_pages_touch(void *memory, size_t bytes, int threads)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    if (threads > MAX_TOUCH_THREADS)
        threads = MAX_TOUCH_THREADS;
    /* Shares of whole 2 MiB pages, so no huge page is faulted by two threads. */
    size_t pages = (bytes + HOST_PAGES_HUGE_BYTES - 1) / HOST_PAGES_HUGE_BYTES;
    if ((size_t)threads > pages)
        threads = pages ? (int)pages : 1;
    struct touch_share shares[MAX_TOUCH_THREADS];
    pthread_t workers[MAX_TOUCH_THREADS];
    int created[MAX_TOUCH_THREADS] = {0};
    int used = 0;
    size_t per_thread = (pages + (size_t)threads - 1) / (size_t)threads * HOST_PAGES_HUGE_BYTES;
    for (int t = 0; t < threads; ++t) {
        size_t begin = (size_t)t * per_thread;
        if (begin >= bytes)
            break;
        shares[t].begin = (unsigned char *)memory + begin;
        shares[t].bytes = begin + per_thread > bytes ? bytes - begin : per_thread;
        used = t + 1;
        if (t > 0 && pthread_create(&workers[t], NULL, touch_share, &shares[t]) == 0)
            created[t] = 1;
        else if (t > 0)
            touch_share(&shares[t]); /* no thread to spare: this one does the share */
    }
    if (used > 0)
        touch_share(&shares[0]);
    for (int t = 1; t < used; ++t)
        if (created[t])
            pthread_join(workers[t], NULL);
}

unsigned long long host_memory_limit(void)
{
    unsigned long long physical =
        (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE);
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (unsigned long long)limit.rlim_cur < physical)
        return (unsigned long long)limit.rlim_cur;
    return physical;
}
