/* pidparse: the /proc and cgroup files that are lists of pids (children,
 * cgroup.procs, a pid file, status's NSpid line). The rules of every
 * /proc parser are procfile.h's. */
#ifndef PROCTREE_PIDPARSE_H
#define PROCTREE_PIDPARSE_H

#include <stddef.h>
#include <sys/types.h>

#include "util/bounds.h"

/* /proc/PID/task/TID/children: space-separated pids. Calls fn(pid, arg) for
 * each; stops and returns -1 on a malformed token or when fn returns
 * non-zero; returns the number of pids otherwise. An empty file is 0. */
int pt_pidparse_children(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg);

/* A cgroup's cgroup.procs: one pid per line, as the reader's pid namespace
 * names them; cgroup v2 writes 0 for a process outside it (v1 leaves it
 * out), which is passed on as 0. Otherwise as pt_pidparse_children. */
int pt_pidparse_cgroup_procs(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg);

/* A pid file, read as systemd's PIDFile= reads one: the first line holds
 * a decimal pid (1 .. PT_PID_LIMIT - 1), with spaces or tabs around it;
 * whatever follows the first newline is ignored (PostgreSQL's
 * postmaster.pid goes on with its data directory, port, ...). buf holds
 * the file's first len bytes, at most PT_PIDFILE_MAX: a first line that
 * runs to the end of PT_PIDFILE_MAX bytes may have been cut, so it is
 * refused; a shorter buffer is the whole file and needs no newline. */
#define PT_PIDFILE_MAX 4096
int pt_pidparse_pidfile(const char *buf, size_t len, pid_t *out);

/* The NSpid line of /proc/PID/status: the process's pid in each pid
 * namespace from the proc mount's down to its own, outermost first (one
 * pid where it runs in the proc mount's namespace). Fills out with at most
 * max pids and returns how many; 0 when there is no such line (kernels
 * before 4.1), -1 when it is malformed, cut short or longer than max. */
#define PT_NSPID_MAX 33 /* the kernel nests at most 32 pid namespaces below the host's */
int pt_pidparse_nspid(const char *buf, size_t len, pid_t *out, size_t max);

#endif
