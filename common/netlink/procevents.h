/* procevents: the kernel's process events (the netlink proc connector).
 *
 * The kernel tells a listener about every fork, exec, exit and change of
 * name, user or group on the host, as they happen. With them, a target's tree
 * takes in every process its members fork, however soon it is orphaned
 * (discovery.c), and the matching selectors learn of a process that
 * starts or becomes a match without walking /proc (procscan.c). The
 * collector owns the one listener and hands each drain to both. The events
 * carry the host's pids: the collector opens the listener only in the
 * host's pid and user namespaces (pidns.h), where the kernel answers the
 * request; elsewhere another listener's events would still reach the
 * socket, with pids that are not the proc root's. Listening also needs the
 * host's network namespace (elsewhere the connector refuses the
 * connection), and older kernels want CAP_NET_ADMIN (they refuse the
 * request, and say so in their answer; Linux 6.18 lets any user listen,
 * measured): where any is missing, pt_procevents_open fails and the walk
 * serves alone.
 *
 * The socket is non-blocking and drained from the thread that polls, so a
 * burst of events costs reads, never a wait. When the kernel had to drop
 * events (the socket buffer overflowed), the drain says so: what they
 * would have said must be found by a walk. */
#ifndef PROCTREE_PROCEVENTS_H
#define PROCTREE_PROCEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/pidmap.h"

enum pt_procevent_kind {
    PT_PROCEVENT_START,  /* a new process (not a thread): fork */
    PT_PROCEVENT_EXEC,   /* a new program: match it again, open its files again */
    PT_PROCEVENT_CREDS,  /* a new user or group: the same */
    PT_PROCEVENT_RENAME, /* a new name (comm): match it again */
    PT_PROCEVENT_EXIT,   /* the process (its last thread) has exited */
};

struct pt_procevent {
    enum pt_procevent_kind kind;
    pid_t pid;    /* the process (its thread-group id) */
    pid_t parent; /* START: the process that forked it */
    bool ends;    /* START: its EXIT follows in the same drain, so its pid
                     may be another process's by now */
    double when;  /* CLOCK_MONOTONIC seconds, as pt_now() */
};

struct pt_procevents {
    int fd;                      /* -1: not listening */
    struct pt_procevent *events; /* the last drain's, in the kernel's order */
    size_t n_events, cap_events;
    struct pt_pidmap starts; /* pid -> its START in this drain */
};

/* Listen: only where pt_pidns_events_fit says the events apply. Returns
 * 0, or -errno: -EPERM where CAP_NET_ADMIN is wanted, -ECONNREFUSED
 * outside the host's network namespace, -ETIMEDOUT when no answer came
 * within half a second, whatever else arrived. */
int pt_procevents_open(struct pt_procevents *ev);
/* Stop listening and free the drain's arrays. */
void pt_procevents_close(struct pt_procevents *ev);

/* Read every event that arrived into ev->events (n_events), without
 * waiting. Returns false when events were lost since the last drain. The
 * array is kept for the next drain: steady state allocates nothing. */
bool pt_procevents_drain(struct pt_procevents *ev);

#endif
