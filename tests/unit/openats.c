#include "openats.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

static long openats;

long unit_openats(void)
{
    return openats;
}

static int counted(int dirfd, const char *path, int flags, va_list ap)
{
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
    openats++;
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/* (with _FILE_OFFSET_BITS=64, as built, <fcntl.h> names them open64 and
 * openat64) */
int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = counted(dirfd, path, flags, ap);
    va_end(ap);
    return fd;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int fd = counted(AT_FDCWD, path, flags, ap);
    va_end(ap);
    return fd;
}
