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

int pt_callerfiles_open_at(int dirfd, const char *path, int flags)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return -EPERM;
    int fd = pt_procfs_openat_confined(dirfd, path, flags | O_CLOEXEC);
    int err = errno;
    pt_caps_resume(paused);
    return fd >= 0 ? fd : -err;
}

int pt_callerfiles_open(const char *path, int flags)
{
    return pt_callerfiles_open_at(AT_FDCWD, path, flags);
}

int pt_callerfiles_stat(const char *path, struct stat *st)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return -EPERM;
    int r = stat(path, st);
    int err = errno;
    pt_caps_resume(paused);
    return r == 0 ? 0 : -err;
}

char *pt_callerfiles_realpath(const char *path)
{
    uint32_t paused = pt_caps_pause();
    if (paused == PT_CAPS_PAUSE_FAILED)
        return NULL;
    char *real = realpath(path, NULL);
    pt_caps_resume(paused);
    return real;
}

int pt_callerfiles_open_regular_at(int dirfd, const char *name, int flags)
{
    /* a cgroup's file needs no capability (0444 or 0644) */
    int fd = pt_callerfiles_open_at(dirfd, name, flags | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

ssize_t pt_callerfiles_read_regular_at(int dirfd, const char *name, struct pt_buf *buf)
{
    return pt_procfs_read_and_close(pt_callerfiles_open_regular_at(dirfd, name, O_RDONLY), buf, pt_procfs_pread_all);
}
