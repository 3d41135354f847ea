/* callerfiles: the files the caller chose, opened with the caller's own
 * permissions (callerfiles.h). */
#include "procfs/callerfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs/caps.h"
#include "procfs/procfile.h"

int pt_open_as_caller_at(int dirfd, const char *path, int flags)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return -EPERM;
    int fd = pt_openat_confined(dirfd, path, flags | O_CLOEXEC);
    int err = errno;
    pt_caps_resume(paused);
    return fd >= 0 ? fd : -err;
}

int pt_open_as_caller(const char *path, int flags)
{
    return pt_open_as_caller_at(AT_FDCWD, path, flags);
}

int pt_stat_as_caller(const char *path, struct stat *st)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return -EPERM;
    int r = stat(path, st);
    int err = errno;
    pt_caps_resume(paused);
    return r == 0 ? 0 : -err;
}

char *pt_realpath_as_caller(const char *path)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return NULL;
    char *real = realpath(path, NULL);
    pt_caps_resume(paused);
    return real;
}

int pt_open_regular_at(int dirfd, const char *name, int flags)
{
    /* a cgroup's file needs no capability (0444 or 0644) */
    int fd = pt_open_as_caller_at(dirfd, name, flags | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

ssize_t pt_read_regular_at(int dirfd, const char *name, struct pt_buf *buf)
{
    return pt_read_and_close(pt_open_regular_at(dirfd, name, O_RDONLY), buf, pt_pread_all);
}
