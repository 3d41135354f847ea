#include "select/pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "procfs/callerfiles.h"
#include "procfs/procfile.h"

static enum pt_pidfile_outcome unreadable(int *detail)
{
    *detail = errno;
    return PT_PIDFILE_UNREADABLE;
}

/* Read the regular file where (an O_PATH descriptor, which cannot be read)
 * was found to be. */
static enum pt_pidfile_outcome read_checked(int where, pid_t *pid, int *detail)
{
    char self[64];
    snprintf(self, sizeof(self), "/proc/self/fd/%d", where);
    int fd = pt_callerfiles_open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        errno = -fd;
        return unreadable(detail);
    }
    char buf[PT_PIDFILE_MAX];
    ssize_t n;
    do
        n = pread(fd, buf, sizeof(buf), 0);
    while (n < 0 && errno == EINTR);
    enum pt_pidfile_outcome outcome;
    if (n < 0)
        outcome = unreadable(detail);
    else
        outcome = pt_pidparse_pidfile(buf, (size_t)n, pid) == 0 ? PT_PIDFILE_PID : PT_PIDFILE_NO_PID;
    close(fd);
    return outcome;
}

/* Is the file behind where (O_PATH) the root of a mount, a file mounted
 * on its own? statx says so since Linux 5.8; before, it is not told. */
static bool mount_root(int where)
{
    struct statx stx;
    return statx(where, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE, &stx) == 0 &&
           (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

static void say_mounted(struct pt_pidfile *pf, const char *path, const char *target_name)
{
    pf->said_mounted = true;
    char name[PT_QUOTED_MAX], file[PT_QUOTED_MAX];
    pt_logf(PT_LOG_WARNING,
            "target \"%s\": pid file \"%s\" is a mount of its own (a single file mounted into this container): the "
            "mount keeps the file it was made with, so a pid file the service writes anew at a restart is not seen "
            "here and the restart is missed; mount the directory that holds it instead",
            pt_escape(target_name, name, sizeof(name)), pt_escape(path, file, sizeof(file)));
}

/* One attempt: the outcome, with pid or detail filled in. */
static enum pt_pidfile_outcome attempt(struct pt_pidfile *pf, const char *path, const char *target_name, pid_t *pid,
                                       int *detail)
{
    /* the caller's file, found and opened with the caller's own
     * permissions: a capability lent to read /proc would tell what lies
     * in a directory closed to the caller */
    int where = pt_callerfiles_open(path, O_PATH);
    if (where < 0) {
        errno = -where;
        return errno == ENOENT || errno == ENOTDIR ? PT_PIDFILE_MISSING : unreadable(detail);
    }
    if (!pf->said_mounted && mount_root(where))
        say_mounted(pf, path, target_name);
    struct stat st;
    enum pt_pidfile_outcome outcome;
    if (fstat(where, &st) != 0) {
        outcome = unreadable(detail);
    } else if (!S_ISREG(st.st_mode)) {
        *detail = (int)(st.st_mode & S_IFMT);
        outcome = PT_PIDFILE_NOT_REGULAR;
    } else {
        outcome = read_checked(where, pid, detail);
    }
    close(where);
    return outcome;
}

static const char *file_kind(int mode)
{
    switch (mode) {
    case S_IFIFO:
        return "a FIFO";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFDIR:
        return "a directory";
    case S_IFSOCK:
        return "a socket";
    default:
        return "a special file";
    }
}

const char *pt_pidfile_problem(const struct pt_pidfile *pf, char *out, size_t outlen)
{
    switch (pf->outcome) {
    case PT_PIDFILE_MISSING:
        snprintf(out, outlen, "does not exist");
        break;
    case PT_PIDFILE_UNREADABLE:
        snprintf(out, outlen, "cannot be read (%s)", strerror(pf->detail));
        break;
    case PT_PIDFILE_NOT_REGULAR:
        snprintf(out, outlen, "is %s, not a regular file", file_kind(pf->detail));
        break;
    case PT_PIDFILE_NO_PID:
        snprintf(out, outlen, "has no pid on its first line");
        break;
    default:
        return NULL;
    }
    return out;
}

static void warn(struct pt_pidfile *pf, const char *path, const char *target_name, double now)
{
    char why[128], more[96];
    if (pf->outcome == PT_PIDFILE_MISSING || !pt_pidfile_problem(pf, why, sizeof(why)))
        return; /* a stopped service often has none: the target's own line says so */
    if (!pt_ratelimit_say(&pf->warned[pf->outcome], now, "like it", more, sizeof(more)))
        return;
    char name[PT_QUOTED_MAX], file[PT_QUOTED_MAX];
    pt_logf(PT_LOG_WARNING, "target \"%s\": pid file \"%s\" %s; ignored until that changes%s",
            pt_escape(target_name, name, sizeof(name)), pt_escape(path, file, sizeof(file)), why, more);
}

pid_t pt_pidfile_read(struct pt_pidfile *pf, const char *path, const char *target_name, double now)
{
    pid_t pid = 0;
    int detail = 0;
    enum pt_pidfile_outcome outcome = attempt(pf, path, target_name, &pid, &detail);
    bool changed = outcome != pf->outcome || detail != pf->detail;
    pf->outcome = outcome;
    pf->detail = detail;
    if (changed)
        warn(pf, path, target_name, now);
    return outcome == PT_PIDFILE_PID ? pid : 0;
}
