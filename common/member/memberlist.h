/* memberlist: a target's members in tree order, each found by its pid.
 * No I/O: the members' reads are member.h's, what a join or a departure
 * means to the tree is tree/membership.c's, which alone writes a target's
 * list through these functions.
 *
 * Invariants (pt_memberlist_check() returns the first one broken):
 *   - the index finds every live member at its place, and a pid is live
 *     in one member at most;
 *   - members are in tree order: a live member's parent, when it is a
 *     live member, comes before it, so a read in order meets a reaper
 *     before what it reaped; unless a member joined after a child of
 *     its own (a walk of /proc offers pids in their order, and a child's
 *     pid is below its parent's once pids wrap; a process that starts to
 *     match after its child): then a reorder is due, done by the next
 *     compaction;
 *   - a member marked gone since the last compaction is told
 *     (pt_memberlist_left): the compaction then drops it.
 *
 * Ownership: the list owns its array and index, and the members in it
 * (pt_memberlist_free closes them); a member's own fields are its
 * readers'. A pointer into the list lasts until the next add or
 * compaction (the array may move). */
#ifndef PROCTREE_MEMBERLIST_H
#define PROCTREE_MEMBERLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "member/memberstate.h"
#include "util/pidmap.h"

struct pt_memberlist {
    struct pt_member *members; /* parents before their children */
    size_t n_members, cap_members;
    struct pt_pidmap position_of; /* pid -> position in members */
    bool need_compaction;
    /* the parents of members that joined without their parent in the
     * list (a pid -> 1 set, rebuilt at each compaction): one of them that
     * joins comes after its child, and a reorder is due */
    struct pt_pidmap parent_missing;
    bool need_order;
    /* Moves at every add and every member that left, and when the reads
     * tell (pt_memberlist_moved) that a member's memory may have moved: a
     * member's smaps_rollup read at an older one may not be its PSS now
     * (tree/membership.c says why any member's movement is every member's). */
    uint64_t memory_gen;
};

/* m appended (copied: the list owns it now), found by its pid from now
 * on; its place in the list. */
struct pt_member *pt_memberlist_add(struct pt_memberlist *ml, const struct pt_member *m);
/* The live member with this pid, or NULL. */
struct pt_member *pt_memberlist_live(const struct pt_memberlist *ml, pid_t pid);
/* A member of the list was marked gone (and closed): the next compaction
 * drops it. */
void pt_memberlist_left(struct pt_memberlist *ml);
/* A member's memory may have moved (its statm, its faults, its program):
 * memory_gen moves. */
void pt_memberlist_moved(struct pt_memberlist *ml);
/* Drop the members gone since the last compaction, if any, and when a
 * reorder is due, put every live member after its live parent (members
 * that are not each other's ancestors keep their order). */
void pt_memberlist_compact(struct pt_memberlist *ml);
/* Every member closed, the array and index freed; the list is empty. */
void pt_memberlist_free(struct pt_memberlist *ml);

/* Do the invariants hold? NULL, or the first one broken, in words (why:
 * its details). */
const char *pt_memberlist_check(const struct pt_memberlist *ml, char *why, size_t whylen);

#endif
