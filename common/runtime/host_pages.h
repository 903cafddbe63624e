/* Host memory a stage maps itself: anonymous memory asked to be backed by 2 MiB pages, and its
 * first touch spread over the CPU cores (the kernel zeroes a page on its first touch, and one
 * thread zeroing 200 MB is slower than the copy that follows). */
#ifndef HOST_PAGES_H
#define HOST_PAGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HOST_PAGES_HUGE_BYTES ((size_t)2 << 20)

/* mmap of bytes rounded up to whole 2 MiB pages, with madvise(MADV_HUGEPAGE) (a hint: without
 * transparent huge pages the memory is backed by 4 KiB pages and still works). NULL when the
 * mapping fails; *mapped_bytes receives the length to give to host_pages_unmap. */
void *host_pages_map(size_t bytes, size_t *mapped_bytes);
void host_pages_unmap(void *memory, size_t mapped_bytes);

/* Writes one byte in every 4 KiB of [memory, memory + bytes) from threads (0: one per core),
 * each taking a contiguous share, so the page faults run on every core at once. */
void host_pages_touch(void *memory, size_t bytes, int threads);

/* The host memory a program may use: the smaller of physical memory and the address-space limit
 * (ulimit -v), for the size checks made before anything is allocated. */
unsigned long long host_memory_limit(void);

#ifdef __cplusplus
}
#endif

#endif
