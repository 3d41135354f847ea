/* targetcg: a cgroup target's cgroups (--cgroup, --unit, a launched
 * command's of its own, launch.h) and the kernel's own accounting of them
 * (cgacct.h): which they are after each discovery, their polls, and their
 * values for the target's line and, with --by cgroup, for each cgroup's
 * line.
 *
 * Ownership: these functions alone write struct pt_target_cgroups (the
 * target's part t->cg, handed to them as `cg`); the target itself they
 * only read (its selector, matcher, options, groups, the CPUs). */
#ifndef PROCTREE_TARGETCG_H
#define PROCTREE_TARGETCG_H

#include <stdbool.h>

#include "tree/targetstate.h"

/* Set up at the target's start, after its matcher (it is a cgroup
 * target: cg->on from then); a launched command's cgroup, which no scan
 * finds, is set here. */
void pt_targetcg_init(const struct pt_target *t, struct pt_target_cgroups *cg);
void pt_targetcg_free(struct pt_target_cgroups *cg);

/* After a scan of the cgroups (discovery.c) at now: the cgroups now,
 * the start line saying what the kernel does not offer for them, and
 * the line of what it offers since (at most once a period: each cgroup
 * of the target made again may gain it again). */
void pt_targetcg_found(const struct pt_target *t, struct pt_target_cgroups *cg, double now);

/* The fast poll: memory in use, one read per cgroup. */
void pt_targetcg_poll(const struct pt_target *t, struct pt_target_cgroups *cg);

/* After a scan of the cgroups: true when a --cgroup's or a single
 * --unit's cgroup has another id than when last seen (made again: the
 * unit restarted); the caller counts the restart. Two restarts between
 * two discoveries are one. */
bool pt_targetcg_restarted(const struct pt_target *t, struct pt_target_cgroups *cg);

/* At the interval's end, before the lines are filled: the values of the
 * target's line (NULL for a target that is no cgroup), and then of a
 * --by cgroup group's (NULL for one that is no cgroup: "." and "other");
 * each cgroup's times at most what the interval of `seconds` can hold
 * (pt_cgacct_bound). */
const struct pt_cgvalues *pt_targetcg_end(const struct pt_target *t, struct pt_target_cgroups *cg, double seconds);
const struct pt_cgvalues *pt_targetcg_values(const struct pt_target *t, const char *group);

#endif
