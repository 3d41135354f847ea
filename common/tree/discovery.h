/* discovery: how a target finds its members: the selector's roots and
 * the walk of their descendants (the kernel's process events are
 * targetevents.h's, the lines of an empty target targetstops.h's). */
#ifndef PROCTREE_DISCOVERY_H
#define PROCTREE_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "select/matcher.h"
#include "tree/targetstate.h"

/* Does the target take its roots from the collector's shared walk of the
 * proc root (--match, --exe, --user)? */
bool pt_target_wants_scan(const struct pt_target *t);
/* Its matcher, for that walk. */
const struct pt_matcher *pt_target_matcher(const struct pt_target *t);
/* The walk found a process the matcher takes: a root for the next
 * pt_target_discover(). */
void pt_target_offer_root(struct pt_target *t, pid_t pid);
/* Resolve the selector (joining the roots offered since the last call)
 * and walk the tree for new descendants; now (the tick's, pt_now()'s
 * clock) is when, for the lines said at most once a period. */
void pt_target_discover(struct pt_target *t, double now);
/* The target is freed: what discovery keeps, too. */
void pt_target_discovery_free(struct pt_target *t);

#endif
