/* targetevents: a target following the kernel's process events: a
 * process forked in the tree joins at once, however soon it is orphaned,
 * which the walk of children files (discovery.c) would miss; one gone
 * before it could join is still counted. Discovery stays the fallback. */
#ifndef PROCTREE_TARGETEVENTS_H
#define PROCTREE_TARGETEVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "netlink/procevents.h"
#include "tree/membership.h"
#include "tree/targetstate.h"

/* The kernel's process events of one drain (procevents.h), in order;
 * complete is false when the kernel dropped some. A process forked by a
 * member (or by a process so forked) joins at once, however soon it is
 * orphaned; one gone before it could join is still counted started and,
 * at its exit event, exited. Discovery stays the fallback. */
void pt_targetevents_follow(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp,
                            const struct pt_procevent *events, size_t n, bool complete);

/* A discovery is done: the exits of processes that never joined are
 * forgotten, unless exit records may still join their zombies. */
void pt_targetevents_discovered(const struct pt_target *t, struct pt_eventbook *events);

#endif
