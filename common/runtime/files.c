#include "runtime/files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "it is a directory";
    if (S_ISFIFO(mode))
        return "it is a named pipe (FIFO), not a regular file";
    if (S_ISCHR(mode))
        return "it is a character device, not a regular file";
    if (S_ISBLK(mode))
        return "it is a block device, not a regular file";
    if (S_ISSOCK(mode))
        return "it is a socket, not a regular file";
    return "it is not a regular file";
}

FILE *open_regular_file(const char *path, const char *what, long long max_bytes, char *error,
                        size_t error_size)
{
    /* What the path is, before opening it: open() itself fails on a socket (ENXIO), and on a
     * named pipe it would wait for a writer. */
    struct stat before;
    if (stat(path, &before) == 0 && !S_ISREG(before.st_mode)) {
        snprintf(error, error_size, "%s: cannot read %s: %s", path, what, kind_of(before.st_mode));
        return NULL;
    }
    /* O_NONBLOCK: should the path have become a named pipe since, opening it does not wait. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(error, error_size, "%s: cannot open %s: %s", path, what, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(error, error_size, "%s: cannot read %s: %s", path, what, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(error, error_size, "%s: cannot read %s: %s", path, what, kind_of(st.st_mode));
        close(fd);
        return NULL;
    }
    if ((long long)st.st_size > max_bytes) {
        snprintf(error, error_size, "%s: %s larger than %lld bytes", path, what, max_bytes);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *file = fdopen(fd, "rb");
    if (!file) {
        snprintf(error, error_size, "%s: cannot read %s: %s", path, what, strerror(errno));
        close(fd);
    }
    return file;
}
