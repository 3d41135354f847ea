/* pidwalk: the numbered entries of a directory below a proc root (its
 * processes, a process's threads or descriptors), read without the heap,
 * opened confined to the proc root (procfile.h); and whether the proc
 * root's mount hides other users' processes (hidepid). */
#ifndef PROCTREE_PIDWALK_H
#define PROCTREE_PIDWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/buf.h"

/* Call fn(number, arg) for every numeric entry of the directory path
 * under dirfd: the processes of a proc root ("."), the threads of a
 * process ("<pid>/task"), the descriptors of one ("<pid>/fd", from 0).
 * Returns 0, or -errno when the directory cannot be opened or read. */
int pt_pidwalk_each(int dirfd, const char *path, void (*fn)(pid_t pid, void *arg), void *arg);

/* Is the proc root mounted with hidepid (other users' processes hidden,
 * or shown without their files)? Then its option ("hidepid=2") goes to
 * out. Read from our own mountinfo, the mount whose device is the proc
 * root's. */
bool pt_pidwalk_hidepid(int proc_root_fd, struct pt_buf *buf, char *out, size_t outlen);

#endif
