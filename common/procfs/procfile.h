/* procfile: read a /proc file through a kept descriptor.
 *
 * A procfs file is regenerated on every read at offset 0, so the cheapest
 * way to sample it again is to keep its fd and pread() it (one syscall,
 * no open/close). Single-record files fit in one read; multi-record files
 * (children lists) come at most ~4 KiB per read, so we always read to EOF.
 * A kept fd of a process that has been reaped returns ESRCH, never the data
 * of a process that reused the pid; the exception is task/TID/children,
 * which then reads as empty (0 bytes). */
#ifndef PROCTREE_PROCFILE_H
#define PROCTREE_PROCFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proctree/buf.h"

/* Read the whole file behind fd from offset 0 into buf (grown as needed,
 * capped at 16 MiB). Returns the length read (0 for an empty file) or
 * -errno: -ESRCH / -ENOENT when the process is gone. */
ssize_t pt_pread_all(int fd, struct pt_buf *buf);

/* The same for a single-record file (stat, statm, io, status, smaps_rollup,
 * meminfo), in one pread when the buffer is large enough: the hot path. */
ssize_t pt_pread_record(int fd, struct pt_buf *buf);

/* fd (an open's result: a -errno is passed on, buf emptied) read with
 * reader (pt_pread_all, or pt_pread_record for a single-record file: one
 * syscall fewer), then closed: the one helper for every file read once
 * and not kept. Returns what read returns. */
ssize_t pt_read_and_close(int fd, struct pt_buf *buf, ssize_t (*reader)(int fd, struct pt_buf *buf));

/* Open path under dirfd, read it whole into buf and close it: a file read
 * once (a cmdline, a children list of a thread, mountinfo). Returns its
 * length or -errno (buf then empty). */
ssize_t pt_read_file_at(int dirfd, const char *path, struct pt_buf *buf);

/* A file someone else may have made (a cgroup's): name under dirfd
 * opened without ever blocking (O_NONBLOCK: a FIFO or a device put where
 * a cgroup file should be opens at once) and without following a last
 * symbolic link, refused when it is no regular file. Returns fd, or
 * -errno: -EINVAL for a file that is not regular. */
int pt_open_regular_at(int dirfd, const char *name, int flags);

/* The same, read whole into buf and closed: length or -errno. */
ssize_t pt_read_regular_at(int dirfd, const char *name, struct pt_buf *buf);

/* openat(dirfd, name, O_RDONLY|O_CLOEXEC). Returns fd or -errno. */
int pt_open_at(int dirfd, const char *name);

/* Call fn(number, arg) for every numeric entry of the directory path
 * under dirfd: the processes of a proc root ("."), the threads of a
 * process ("<pid>/task"), the descriptors of one ("<pid>/fd", from 0).
 * Returns 0, or -errno when the directory cannot be opened or read. */
int pt_for_each_pid_in(int dirfd, const char *path, void (*fn)(pid_t pid, void *arg), void *arg);

/* Is the proc root mounted with hidepid (other users' processes hidden,
 * or shown without their files)? Then its option ("hidepid=2") goes to
 * out. Read from our own mountinfo, the mount whose device is the proc
 * root's. */
bool pt_proc_root_hidepid(int proc_root_fd, struct pt_buf *buf, char *out, size_t outlen);

/* True when err (a -errno result) means the process no longer exists. */
int pt_errno_is_gone(int err);

#endif
