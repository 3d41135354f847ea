/* targetunit: what a --unit target says of its unit (sdunit.h), once,
 * where the numbers alone would mislead: no systemd manages the cgroups
 * read, a glob matches more units than it takes, the unit followed is a
 * user manager's or changed (its processes there leave), and members
 * that run outside the unit's cgroups (descendants moved elsewhere,
 * counted in proc_* and not in cgroup_*: METRICS.md). */
#ifndef PROCTREE_TARGETUNIT_H
#define PROCTREE_TARGETUNIT_H

#include <stdbool.h>

#include "tree/targetstate.h"

/* The part is handed to what writes it (targetstate.h, struct
 * pt_target_unit), the target only to read. */

/* After a scan of the unit's cgroups (discovery.c), before the pids it
 * listed (t->discovery.pending) join: true when a single name's
 * directory moved (a user's unit taken, or the system manager's found in
 * its stead, or anywhere else): the processes found at the old place are
 * another unit's, and the caller makes them leave. A system unit that
 * crash-loops beside a user's of its name moves twice a restart: said
 * (pt_targetunit_say_moved) at most once a period, with the target's
 * other restarts. */
bool pt_targetunit_scanned(const struct pt_target *t, struct pt_target_unit *unit);
/* The line of a move, before its members leave; more: the restart
 * limiter's tail. */
void pt_targetunit_say_moved(const struct pt_target *t, const char *more);

/* After a discovery: members outside the unit's cgroups, said once. */
void pt_targetunit_discovered(const struct pt_target *t, struct pt_target_unit *unit);

void pt_targetunit_free(struct pt_target_unit *unit);

#endif
