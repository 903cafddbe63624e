/* Opening the files a program reads (scenes, images) without hanging or reading without end. */
#ifndef FILES_H
#define FILES_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading only if it is a regular file of at most max_bytes: a directory, a
 * named pipe (which would block until a writer comes), a device (/dev/zero never ends) or a
 * socket is refused before anything is read. Returns the stream, or NULL with a one-line message
 * "PATH: cannot read WHAT: REASON" in error. */
FILE *open_regular_file(const char *path, const char *what, long long max_bytes, char *error,
                        size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
