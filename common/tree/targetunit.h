/* targetunit: what a --unit target says of its unit (sdunit.h), once,
 * where the numbers alone would mislead: no systemd manages the cgroups
 * read, a glob matches more units than it takes, the unit followed is a
 * user manager's or changed (its processes there leave), and members
 * that run outside the unit's cgroups (descendants moved elsewhere,
 * counted in proc_* and not in cgroup_*: METRICS.md). */
#ifndef PROCTREE_TARGETUNIT_H
#define PROCTREE_TARGETUNIT_H

#include "tree/targetstate.h"

/* After a scan of the unit's cgroups (discovery.c) at now, before the
 * pids it listed (t->discovery.pending) join. */
void pt_target_unit_scanned(struct pt_target *t, double now);

/* After a discovery: members outside the unit's cgroups, said once. */
void pt_target_unit_discovered(struct pt_target *t);

void pt_target_unit_free(struct pt_target *t);

#endif
