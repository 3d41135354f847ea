/* membership: a target's members, joining and leaving (their reads at
 * each cadence are sampling.h's), each change told to the
 * ledger (ledger.h), and a member that leaves kept as a departure
 * (member/departures.h) for the exit records to settle. The list itself is
 * member/memberlist.h's, written only here, as the departures are.
 *
 * Invariants (pt_targetstate_debug_check(), targetstate.h, asserts them): the list's
 * (memberlist.h: tree order, its index), the departures' (departures.h),
 * the ledger's over the live members, the interval's. */
#ifndef PROCTREE_MEMBERSHIP_H
#define PROCTREE_MEMBERSHIP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "member/member.h"
#include "member/threads.h"
#include "tree/targetstate.h"

/* What a change of membership writes, each part by its own type: the
 * member list and the departures, which this file alone writes (through
 * memberlist.h's and departures.h's functions), and what a change tells:
 * the ledger, the interval, the event book, the denials said. The target
 * itself comes as a pointer to const: target.c, the one holder of a
 * writable target, makes this (membership_parts there) and hands it
 * down, so a function writes only the parts its parameters name. */
struct pt_membership_parts {
    struct pt_memberlist *list;
    struct pt_departures *departures;
    struct pt_ledger *ledger;
    struct pt_interval *interval;
    struct pt_eventbook *events;
    unsigned *warned_denied;
    struct pt_udpbytes *udp; /* a member that leaves gives its last UDP bytes */
};

/* Open pid as a new member. baseline: it joins as part of a new root's
 * tree (its past is not counted); otherwise it was born in the tree.
 * NULL when it cannot join (gone, a kernel thread for a matching
 * selector, no descriptors). The members array may move. */
struct pt_member *pt_membership_join(const struct pt_target *t, const struct pt_membership_parts *mp, pid_t pid,
                                     uint64_t expected_starttime, bool baseline);
/* pid, a process of the tree that never joined, whose exit record is
 * being followed, joins (born in the tree) while it is a zombie: its
 * record then settles it as a member's, with a breakdown too. */
struct pt_member *pt_membership_join_recorded(const struct pt_target *t, const struct pt_membership_parts *mp,
                                              pid_t pid, uint64_t starttime);
/* pid exec'd or changed its credentials: if it is a member, its files
 * are opened again under the permissions it has now (pt_member_reopen),
 * and every member's PSS is read at the next sample (its old memory map
 * was shared). */
void pt_membership_member_changed(const struct pt_target *t, const struct pt_membership_parts *mp, pid_t pid);
/* A member found gone, in tree order: if its parent is a member still
 * there, it reaped this one. */
void pt_membership_member_gone(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m);
/* The selector names another root (a rewritten pid file): every member
 * leaves, as one reaped outside the tree does (its last values stay
 * counted, it counts as exited), and its later forks are not the tree's. */
void pt_membership_leave_all(const struct pt_target *t, const struct pt_membership_parts *mp);
/* Drop the members that are gone, if any. */
void pt_membership_compact(const struct pt_membership_parts *mp);
/* The departures were settled by a drain of exit records, or no record is
 * to come: forgotten. */
void pt_membership_departures_settled(const struct pt_membership_parts *mp);
/* The target is freed: its members closed, their list and the departures
 * freed. */
void pt_membership_free(const struct pt_membership_parts *mp);
/* Refresh a member's counters, and settle what the read tells (it may
 * find the member gone). */
void pt_membership_read_counters(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m);
/* Every live member's counters at the interval's end, in the list's order:
 * parents before children (a child found gone is settled against its
 * parent's fresh counters). */
void pt_membership_read_all_counters(const struct pt_target *t, const struct pt_membership_parts *mp);
/* m's exact CPU (ledger.h, pt_ledgerrecords_exact_cpu), once its final stat (a
 * zombie's) and its whole exit records are both in; called after each. */
void pt_membership_exact_cpu(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m);
/* The name m's group goes by (pt_target_by_member_name): by title its
 * title's group, by cgroup the name of the cgroup it joined in, else its
 * comm. */
const char *pt_membership_group_name(const struct pt_target *t, const struct pt_member *m);
/* A member whose name changed (by process an exec, by title a new title)
 * moves to its new name's group with what it did since the last
 * interval's end. */
void pt_membership_follow_name(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m);
/* --by title: m's title's group (titlegroup.h) from its command line now,
 * read at its join, its exec and the interval's last reads. One that
 * shows none (a zombie's), or a read that fails, keeps the group it
 * had; with none yet, the title is what ps shows then, "[COMM]". */
void pt_membership_read_title(const struct pt_target *t, struct pt_member *m);

/* The group of a process whose group's name (pt_membership_group_name)
 * is name and whose parent is parent, for a breakdown that partitions
 * the members: its name's (by process, by title); by cgroup its
 * parent's, where it was born, else the target's own cgroup's (so that
 * the groups still add up); -1 for the other breakdowns. */
int32_t pt_membership_group_of(const struct pt_target *t, struct pt_ledger *ledger, const char *name, pid_t parent);
/* The per-thread counts the target counts now (enum pt_tcount bits): the
 * switches unless --no-ctx-switches, the run-queue delay, the block-I/O
 * delay while kernel.task_delayacct was 1 at the last end (blkio_read). */
unsigned pt_membership_tcounts_counted(const struct pt_target *t);
/* A starttime (clock ticks after boot) on pt_now's clock, to a tick's
 * lower bound: the process started after whatever this is after. */
double pt_membership_start_time(const struct pt_target *t, uint64_t starttime);
/* The per-thread counts of m read now (read: enum pt_tcount bits), its
 * live threads summing to now: their growth since its last read is the
 * tree's, and now is the base of the next. */
void pt_membership_credit_tcounts(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m,
                                  const int64_t now[PT_TC_COUNT], unsigned read);

/* The breakdown by thread name: a thread's usage u, read now (cpu_now,
 * ctx_now), credited to its name's group since its last read; a thread
 * first seen brings its whole past when count_past. */
void pt_membership_credit_thread(struct pt_ledger *ledger, struct pt_thread_usage *u, bool count_past);
/* The clock and page size a member's reads (membersource.h) convert by. */
struct pt_membersource_units pt_membership_source_units(const struct pt_target *t);

#endif
