/* targetempty: what a target with no live process says. An empty target
 * looks like a stopped service, but a dozen other things make one (a pid
 * file naming pid 1, a pid the proc root hides, a cgroup of the host read
 * from a container's /sys, a unit not running, pids of another pid
 * namespace): one line names which it is and how to mend it, said again
 * only when the reason changes, and a line when it is followed again. */
#ifndef PROCTREE_TARGETEMPTY_H
#define PROCTREE_TARGETEMPTY_H

#include <stdbool.h>

#include "targetstate.h"

/* After a discovery: one line when the target becomes empty, and again
 * when the reason (or the pid) changes; one when it is followed again. */
void pt_target_say_why_empty(struct pt_target *t);

/* Is no reason said now: the target had a live process at its last
 * discovery (or never had a discovery)? */
bool pt_target_empty_unsaid(const struct pt_target *t);

#endif
