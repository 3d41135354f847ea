#include "preads.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static long smaps_reads;

long unit_smaps_reads(void)
{
    return smaps_reads;
}

/* Is fd open on a file named smaps_rollup? Asked of /proc/self/fd, which
 * names what it was opened as (a fixture's path, or a real /proc's). */
static int is_smaps_rollup(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n < 0)
        return 0;
    path[n] = '\0';
    const char *base = strrchr(path, '/');
    return strcmp(base ? base + 1 : path, "smaps_rollup") == 0;
}

static ssize_t counted(int fd, void *buf, size_t count, off_t offset)
{
    if (offset == 0 && is_smaps_rollup(fd))
        smaps_reads++;
    return (ssize_t)syscall(SYS_pread64, fd, buf, count, offset);
}

/* (with _FILE_OFFSET_BITS=64, as built, <unistd.h> names it pread64,
 * the symbol the library's calls go to) */
ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
    return counted(fd, buf, count, offset);
}
