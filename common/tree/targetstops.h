/* targetstops: what a target with no live process says. An empty target
 * looks like a stopped service, but a dozen other things make one (a pid
 * file naming pid 1, a pid the proc root hides, a cgroup of the host read
 * from a container's /sys, a unit not running, pids of another pid
 * namespace): one line names which it is and how to mend it, said again
 * only when the reason changes, and a line when it is followed again;
 * none of them more than once a period for one reason, nor for a service
 * that crash-loops (whose restarts the same limit holds). Its part,
 * struct pt_target_stops (targetstate.h), is handed to what writes it,
 * the target only to read. */
#ifndef PROCTREE_TARGETSTOPS_H
#define PROCTREE_TARGETSTOPS_H

#include <stdbool.h>
#include <stddef.h>

#include "tree/targetstate.h"

/* After a discovery at now: one line when the target becomes empty, and
 * again when the reason (or the pid) changes; one when it is followed
 * again, if the target's emptiness was said. Each at most once a
 * PT_RATELIMIT_PERIOD: a followed target that stops shares its limit
 * with the restarts' lines (pt_targetstops_restart_pass), an empty target's
 * line has its reason's. A line held back is said late, once its limit
 * lets it, if the target is empty still for the same reason. */
void pt_targetstops_say_why_empty(const struct pt_target *t, struct pt_target_stops *s, double now);

/* Will no "following again" be said when the target has a live process
 * next: it had one at its last discovery (or never had a discovery), or
 * every line since was held back? */
bool pt_targetstops_unsaid(const struct pt_target_stops *s);

/* May a line of a restart (the root replaced: a pid file naming another
 * process, a unit found at another manager's) be said at now? If so, tail
 * gets the line's tail (pt_ratelimit_held_tail). One limit a target for
 * those and for its stops: a service that crash-loops says one line a
 * period, whether discoveries see it restarted or stopped. */
bool pt_targetstops_restart_pass(struct pt_target_stops *s, double now, char *tail, size_t len);

#endif
