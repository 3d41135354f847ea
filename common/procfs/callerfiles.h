/* callerfiles: the files the caller chose (a pid file, a cgroup's
 * directory and the files in it, a sys root), opened with the caller's
 * own permissions wherever they are.
 *
 * Capabilities lend nothing: proctree-execd raises the capabilities its
 * binary carries to read /proc (caps.h), and any local user may run it.
 * A path that user names must not be opened with them: a link in a
 * directory of his own would read a root-only file, and the errors and
 * warnings would tell what exists in a directory closed to him. So each
 * open here lowers the raised capabilities around it (pt_caps_pause), and
 * none is needed: a cgroup's files are 0444 or 0644, and a pid file or a
 * cgroup the caller cannot reach himself is none of his to name. Where
 * nothing is raised (collectd, root, a binary without file capabilities)
 * no system call is added.
 *
 * Every path below a directory is opened as procfile.h's
 * pt_procfs_openat_confined opens it: never above it, through no magic link. */
#ifndef PROCTREE_CALLERFILES_H
#define PROCTREE_CALLERFILES_H

#include <sys/stat.h>
#include <sys/types.h>

#include "util/buf.h"

/* path opened (O_CLOEXEC added) or stat'ed with the caller's own
 * permissions; below dirfd (not AT_FDCWD), never above it nor through a
 * magic link. Returns fd (or 0) or -errno. */
int pt_callerfiles_open_at(int dirfd, const char *path, int flags);
int pt_callerfiles_open(const char *path, int flags);
int pt_callerfiles_stat(const char *path, struct stat *st);
/* realpath(path, NULL), its links followed as the caller may: NULL where
 * the caller could not, or the capabilities could not be lowered. */
char *pt_callerfiles_realpath(const char *path);

/* A file someone else may have made (a cgroup's): name under dirfd
 * opened without ever blocking (O_NONBLOCK: a FIFO or a device put where
 * a cgroup file should be opens at once), without following a last
 * symbolic link nor leaving dirfd, with the caller's own permissions
 * (pt_caps_pause: no cgroup file needs a capability, and the path may be
 * the caller's choice), refused when it is no regular file. Returns fd,
 * or -errno: -EINVAL for a file that is not regular. */
int pt_callerfiles_open_regular_at(int dirfd, const char *name, int flags);

/* The same, read whole into buf and closed: length or -errno. */
ssize_t pt_callerfiles_read_regular_at(int dirfd, const char *name, struct pt_buf *buf);

#endif
