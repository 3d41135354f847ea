/* discovery: how a target finds its members: the selector's roots and
 * the walk of their descendants (the kernel's process events are
 * targetevents.h's, the lines of an empty target targetstops.h's). */
#ifndef PROCTREE_DISCOVERY_H
#define PROCTREE_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "select/matcher.h"
#include "tree/membership.h"
#include "tree/targetstate.h"

/* What finding members writes, each part by its own type: its own part
 * (written here only), and what it tells: the membership's parts (a root
 * joins, an old tree leaves), the matcher's scan of the cgroups and its
 * notes said, the cgroups found, a --unit target's scan, an empty
 * target's lines. */
struct pt_discovery_parts {
    const struct pt_membership_parts *mp;
    struct pt_target_discovery *d;
    struct pt_matcher *matcher;
    struct pt_target_cgroups *cg;
    struct pt_target_unit *unit;
    struct pt_target_stops *stops;
};

/* Does the target take its roots from the collector's shared walk of the
 * proc root (--match, --exe, --user)? */
bool pt_discovery_wants_scan(const struct pt_target *t);
/* Its matcher, for that walk. */
const struct pt_matcher *pt_discovery_matcher(const struct pt_target *t);
/* The walk found a process the matcher takes: a root for the next
 * pt_discovery_run(). */
void pt_discovery_offer_root(struct pt_target_discovery *d, pid_t pid);
/* Resolve the selector (joining the roots offered since the last call)
 * and walk the tree for new descendants; now (the tick's, pt_now()'s
 * clock) is when, for the lines said at most once a period. */
void pt_discovery_run(const struct pt_target *t, const struct pt_discovery_parts *dp, double now);
/* The target is freed: what discovery keeps, too. */
void pt_discovery_free(struct pt_target_discovery *d);

#endif
