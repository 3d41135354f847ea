/* eventstate: what a target following the kernel's process events keeps
 * between drains (struct pt_target_events, targetstate.h). Only this file
 * writes it, told what happened: by targetevents.c what the events said,
 * by membership.c of a join or a leave, by exits.c and discovery of the
 * unjoined exits settled. */
#ifndef PROCTREE_EVENTSTATE_H
#define PROCTREE_EVENTSTATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "target/targetstate.h"

/* A drain of process events begins; complete is false when the kernel
 * dropped some: exits may be lost, so the forks that await theirs would
 * wait forever, and are forgotten. */
void pt_events_drain_begins(struct pt_target *t, bool complete);
/* The drain is done: the forks of the members that joined or left before
 * it were in it. */
void pt_events_drain_done(struct pt_target *t);
/* pid was forked: an unjoined exit of that pid was another process's. */
void pt_events_forked(struct pt_target *t, pid_t pid);
/* pid, forked in the tree by parent, did not join (it is gone, or its
 * exit is in the same drain): counted started, its exit awaited. */
void pt_events_forked_unjoined(struct pt_target *t, pid_t pid, pid_t parent);
/* pid exited: if it was forked in the tree and never joined, it is an
 * unjoined exit now. Its parent at its fork, or -1. */
pid_t pt_events_exited(struct pt_target *t, pid_t pid);
/* pid joins: was it an unjoined exit (counted started and exited by the
 * events)? It is no longer one. */
bool pt_events_joins_exited(struct pt_target *t, pid_t pid);
/* pid joins, born in the tree: was it known from its fork (counted
 * started)? Its exit is no longer awaited. */
bool pt_events_joins_forked(struct pt_target *t, pid_t pid);
/* pid joined or left while the events are followed: its forks may still
 * be in the socket, and are the tree's when forks_ours. */
void pt_events_member_moved(struct pt_target *t, pid_t pid, bool forks_ours);
/* The unjoined exits are settled: their zombies joined, or are reaped. */
void pt_events_unjoined_exits_settled(struct pt_target *t);
void pt_events_free(struct pt_target *t);

#endif
