/* eventbook: what one tree following the kernel's process events
 * (procevents.h) keeps between drains, with no I/O: the forks of the tree
 * that never joined and await their exit, the members that joined or
 * left since the last drain (their forks may still be in the socket), and
 * the exits of forks that never joined. It is told what happened: by the
 * target's events (targetevents.c) what a drain said, by its membership
 * of a join or a leave, by its exits and discovery of the unjoined exits
 * settled. Only these functions write a struct pt_eventbook; the target's
 * parts read its maps.
 *
 * Invariant: a pid is never both awaited (parent_of_forked) and an
 * unjoined exit: an exit moves it from the one to the other, a fork of
 * the pid again clears its unjoined exit, a join takes it out of both. */
#ifndef PROCTREE_EVENTBOOK_H
#define PROCTREE_EVENTBOOK_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/pidmap.h"

struct pt_eventbook {
    bool follows; /* pt_target_follow_events was called */
    /* pid -> its parent: forked in the tree, never joined (gone first):
     * counted started, its exit awaited */
    struct pt_pidmap parent_of_forked;
    /* pid -> 1 when its forks are the tree's, 0 when it joined as a new
     * root: members that joined or left since the last drain */
    struct pt_pidmap forks_ours_lately;
    /* pid -> 1: forked in the tree and exited, never joined, since the
     * last discovery: counted started and exited; a zombie of them may
     * still join */
    struct pt_pidmap unjoined_exits;
};

/* The events are listened to from now on: the first drain to come holds
 * every fork since, so the joins and leaves before it are noted (a
 * collector opens its listener before its first discovery, and drains
 * after it: a launched command's first forks wait in the socket). */
void pt_eventbook_listened(struct pt_eventbook *b);
/* A drain of process events begins; complete is false when the kernel
 * dropped some: exits may be lost, so the forks that await theirs would
 * wait forever, and are forgotten. */
void pt_eventbook_drain_begins(struct pt_eventbook *b, bool complete);
/* The drain is done: the forks of the members that joined or left before
 * it were in it. */
void pt_eventbook_drain_done(struct pt_eventbook *b);
/* pid was forked: an unjoined exit of that pid was another process's. */
void pt_eventbook_forked(struct pt_eventbook *b, pid_t pid);
/* pid, forked in the tree by parent, did not join (it is gone, or its
 * exit is in the same drain): counted started, its exit awaited. */
void pt_eventbook_forked_unjoined(struct pt_eventbook *b, pid_t pid, pid_t parent);
/* pid exited: if it was forked in the tree and never joined, it is an
 * unjoined exit now. Its parent at its fork, or -1. */
pid_t pt_eventbook_exited(struct pt_eventbook *b, pid_t pid);
/* pid joins: was it an unjoined exit (counted started and exited by the
 * events)? It is no longer one. */
bool pt_eventbook_joins_exited(struct pt_eventbook *b, pid_t pid);
/* pid joins, born in the tree: was it known from its fork (counted
 * started)? Its exit is no longer awaited. */
bool pt_eventbook_joins_forked(struct pt_eventbook *b, pid_t pid);
/* pid joined or left while the events are followed: its forks may still
 * be in the socket, and are the tree's when forks_ours. */
void pt_eventbook_member_moved(struct pt_eventbook *b, pid_t pid, bool forks_ours);
/* The unjoined exits are settled: their zombies joined, or are reaped. */
void pt_eventbook_unjoined_exits_settled(struct pt_eventbook *b);
void pt_eventbook_free(struct pt_eventbook *b);

/* NULL when the invariant above holds for pid, else what is broken. */
const char *pt_eventbook_check_pid(const struct pt_eventbook *b, pid_t pid);

#endif
