/* pidfile: the pid a pid file names, read without trusting the file.
 *
 * Whoever can write the pid file (often the service's own user, in a
 * directory it owns) chooses what proctree opens, and proctree may run as
 * root inside the host agent. So:
 *   - the path (symlinks followed: /var/run -> /run is normal) is opened
 *     O_PATH, which reads nothing and runs no driver's open, and fstat'ed;
 *     anything but a regular file is refused there. A FIFO would block the
 *     open or the read until a writer comes, /dev/zero never ends, and a
 *     device's open can act (opening /dev/watchdog arms the watchdog).
 *   - only then is it opened for reading, through /proc/self/fd: the very
 *     inode that was checked, not whatever the path names by then. The
 *     open is O_NONBLOCK|O_NOCTTY too, belt and braces.
 *   - one pread of at most PT_PIDFILE_MAX bytes into a stack buffer, parsed
 *     by pt_pidparse_pidfile (first line only). The content never reaches a
 *     log line.
 * A problem is logged once, as a warning naming the file and the reason,
 * when it first appears or changes (each kind at most once a period: a
 * file that changes its problem at every read is said with the count of
 * those held back); meanwhile the file names no pid. A
 * missing file is not a problem: a stopped service often has none.
 * Not defended: a path on a hung NFS or a FUSE mount can block the lookup
 * itself; nothing short of a separate thread avoids that. */
#ifndef PROCTREE_PIDFILE_H
#define PROCTREE_PIDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/base.h"
#include "util/ratelimit.h"

enum pt_pidfile_outcome {
    PT_PIDFILE_PID,         /* the first line holds a pid */
    PT_PIDFILE_MISSING,     /* ENOENT, ENOTDIR */
    PT_PIDFILE_UNREADABLE,  /* open or read failed: err holds errno */
    PT_PIDFILE_NOT_REGULAR, /* a FIFO, device, directory or socket: mode holds S_IFMT */
    PT_PIDFILE_NO_PID,      /* read, but the first line is not a pid */
};
#define PT_PIDFILE_OUTCOMES (PT_PIDFILE_NO_PID + 1)

/* The outcome of the last read, so that a problem is logged once. */
struct pt_pidfile {
    enum pt_pidfile_outcome outcome;
    int detail;        /* errno for UNREADABLE, S_IFMT bits for NOT_REGULAR */
    bool said_mounted; /* the file is a mount of its own: said once */
    /* the warning of each problem: a hostile file can change its problem
     * (a FIFO, a directory, no pid) at every read */
    struct pt_ratelimit warned[PT_PIDFILE_OUTCOMES];
};

/* The pid the file at path names now, or 0. A problem that differs from
 * the last call's is logged as a warning about target_name, each kind of
 * problem at most once a PT_RATELIMIT_PERIOD of now; so is, once,
 * a pid file that is a mount point of its own (a single file mounted into
 * a container: the mount pins the inode it was made with, so a new pid
 * file the service writes, a new inode as most services write it, is
 * never seen through it). */
pid_t pt_pidfile_read(struct pt_pidfile *pf, const char *path, const char *target_name, double now);
/* What is wrong with the file at the last read, in words ("does not
 * exist", "is a FIFO, not a regular file", ...), into out; NULL when it
 * named a pid. */
const char *pt_pidfile_problem(const struct pt_pidfile *pf, char *out, size_t outlen);

#endif
