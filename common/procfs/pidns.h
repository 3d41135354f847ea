/* pidns: pids across pid namespaces.
 *
 * proctree in a container may read the host's /proc (HOST_PROC,
 * --proc-root, ProcRoot) from a pid namespace of its own. The proc root
 * then names every process, this one included, by its pid in the proc
 * root's namespace, while getpid(), fork(), waitid() and kill() speak
 * ours. Every pid proctree compares with or looks up in the proc root must
 * be the proc root's: these functions say what ours are there. */
#ifndef PROCTREE_PIDNS_H
#define PROCTREE_PIDNS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/buf.h"

/* Our pid as the proc root sees it: its "self" link, which a procfs
 * resolves in the namespace it was mounted for. 0 where the proc root is
 * a procfs that does not show us (the /proc of a pid namespace below or
 * beside ours: a container's, seen from outside); getpid() where it is no
 * procfs (a fixture tree). */
pid_t pt_pidns_self(int proc_root_fd);

/* Is this process in the host's (the initial) pid namespace? Told by the
 * namespace's identity (its ns/pid inode, which the kernel fixes for the
 * initial one), never by what one procfs shows. True when it cannot be
 * told. */
bool pt_pidns_is_hosts(int proc_root_fd);

/* Is this process in the host's user namespace? The same, for the
 * namespace that decides whom its capabilities reach (proc_root_fd -1:
 * our own /proc alone). */
bool pt_pidns_user_is_hosts(int proc_root_fd);

/* Does this process run in a pid or cgroup namespace of its own (a
 * container's)? Then its /proc and /sys show its own processes and
 * cgroups, not the host's. */
bool pt_pidns_in_container(int proc_root_fd);

/* Can the kernel's process events and exit records be used with this
 * proc root? They carry the initial pid namespace's pids, and the kernel
 * answers a listener only in the initial pid and user namespaces (it
 * ignores the others' requests, though another listener's events still
 * reach their sockets): they apply only to a process in both, reading the
 * procfs that shows it under its own pid (the initial namespace's). */
enum pt_pidns_events {
    PT_EVENTS_APPLY,
    PT_EVENTS_NOT_PROCFS,      /* a fixture tree: its pids are nobody's */
    PT_EVENTS_OTHER_PID_NS,    /* this process runs in another pid namespace (a container's) */
    PT_EVENTS_OTHER_PROC_ROOT, /* the proc root is another pid namespace's /proc */
    PT_EVENTS_OTHER_USER_NS,   /* this process runs in another user namespace */
};
enum pt_pidns_events pt_pidns_events_fit(int proc_root_fd);

/* Our child ours (its pid in our namespace, as fork() or waitid() give
 * it) as the proc root names it: the child of one of root_self's threads
 * whose NSpid ends in ours. ours itself when the proc root is our
 * namespace's (root_self is getpid()); 0 when the proc root shows no such
 * child (a zombie is still shown). */
pid_t pt_pidns_child_in_root(int proc_root_fd, pid_t root_self, pid_t ours, struct pt_buf *buf);

/* The proc root's pid of the process whose pid is ours in our namespace,
 * found by reading every process's NSpid (one walk of the proc root: for a
 * hint said once, not for a poll). 0 when none or more than one process
 * fits (a sibling namespace at our depth can use the same number). */
pid_t pt_pidns_find_in_root(int proc_root_fd, pid_t root_self, pid_t ours, struct pt_buf *buf);

/* Does the proc root's process pid run in our namespace under the same
 * pid? True when it is that very process as we see it (or the proc root
 * is our namespace's); false when our pid `pid` is another process. */
bool pt_pidns_same_pid(int proc_root_fd, pid_t root_self, pid_t pid, struct pt_buf *buf);

#endif
