/* groups: a target's amounts split by process name (--by process), by
 * the group its process title gives (--by title: titlegroup.h), or by the
 * cgroup below the target's that holds each member (--by cgroup:
 * a child is born in its parent's cgroup, and a member found by its
 * parent, not by a scan of the cgroups, is in its parent's group).
 *
 * A group is a name and what its members did. Its cumulative counter is
 * built as the tree's is (ledger.h), from the same events:
 *
 *     G = adjust + sum over its live members of their counted counters
 *
 * and every change the ledger makes to the tree's adjust is made to one
 * group's adjust too, so the groups' G add up to the tree's C. The rules
 * (docs/METRICS.md, "Breakdown"):
 *   - a member reaped by a member keeps in its own group what its last
 *     read showed; the reaper's group gives that back when the kernel
 *     folds it into the reaper, so only the child's unseen last moments,
 *     and the whole of a child proctree never saw, land in the reaper's
 *     group (as the kernel folds them there);
 *   - a member that changes its name (exec; by title a new title) moves to the new name's group
 *     with what it did since the last interval's end (or its join), at the
 *     next interval's end or when it leaves, whichever comes first.
 * With the kernel's exit records, exits.c moves what the kernel folded
 * into a reaper (a child's last moments, a child never seen) from the
 * reaper's group to the child's: moves between groups, so the sum stays.
 *
 * Memory gauges are min/max of the group's sum at each poll. The table
 * has a fixed number of slots (the limit, plus "other" for every name past
 * it), allocated once: no allocation per poll. A slot whose group has no
 * live member is freed once the interval it emptied in is reported. */
#ifndef PROCTREE_GROUPS_H
#define PROCTREE_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "procfs/procfile.h"
#include "report/quantities.h"
#include "report/report.h"

/* A group's name: a comm, a title's group (cut to it), or a cgroup's directory name (systemd's unit
 * names are shorter), NUL included. */
#define PT_GROUP_NAME_MAX 256

/* The name of the group past the limit. */
#define PT_GROUP_OTHER "other"

struct pt_group {
    char name[PT_GROUP_NAME_MAX]; /* raw bytes, as the kernel shows comm or cmdline or names a cgroup */
    bool in_use;
    int64_t adjust[PT_CTR_COUNT];
    int64_t high_water[PT_CTR_COUNT], interval_base[PT_CTR_COUNT];
    /* the last deltas' CPU (user + system, ticks) and the most they could
     * be (-1: unbounded), for pt_ledgercheck */
    int64_t cpu_reported, cpu_max;
    bool cpu_waits; /* they left CPU for the next line */
    /* this interval */
    struct pt_extrema gauges[PT_G_COUNT];
    int64_t poll[PT_G_COUNT];   /* the sums of the poll under way */
    int64_t live[PT_CTR_COUNT]; /* its live members' counted counters, at the end */
    bool stat_seen, io_seen, fds_seen;
    unsigned tc_seen;        /* per-thread counts (enum pt_tcount bits) credited */
    int64_t tc[PT_TC_COUNT]; /* and done */
    int64_t processes, threads, fds;
    /* CPU given from exit records and folds, in microseconds, less the
     * whole clock ticks the group was given for it (ledger.c): kept across
     * intervals, so many short processes lose nothing to rounding */
    int64_t cpu_rest_us[2];
    /* scratch of one fold's sharing out (share_fold in ledger.c) */
    int64_t fold_weight_us, fold_ticks;
    double fold_want;
};

struct pt_groups {
    struct pt_group *list; /* limit named slots, then "other" */
    uint32_t limit;
    int64_t retired[PT_CTR_COUNT];       /* the adjust of the groups freed: with the groups
                                            in use, what all groups ever added up to */
    int64_t retired_marks[PT_CTR_COUNT]; /* their high-water marks: all they reported */
};

/* limit: named groups at most (>= 1). */
void pt_groups_init(struct pt_groups *gs, uint32_t limit);
void pt_groups_free(struct pt_groups *gs);
/* The slot of the group named name (NUL-terminated), taking a free slot
 * for a new name; "other"'s when none is free. */
uint32_t pt_groups_find(struct pt_groups *gs, const char *name);
/* Add v (which may be negative) to counter k of group g's adjust. */
void pt_groups_adjust(struct pt_groups *gs, uint32_t g, int k, int64_t v);
/* v of counter k from group from's adjust to group to's: the sum stays. */
void pt_groups_move(struct pt_groups *gs, uint32_t from, uint32_t to, int k, int64_t v);
/* Group slot (< limit) merged into "other", every counter, mark and base
 * added to other's (so the sums stay), and freed: the ranked breakdown
 * (rank.h) gives its slot to another name. The caller points its members
 * to "other". Between intervals only (its interval's values are cleared). */
void pt_groups_merge_other(struct pt_groups *gs, uint32_t slot);
/* One poll's sums of gauges [first, last] are in each group's poll[]:
 * add them to the extrema of every group in use and clear them. */
void pt_groups_end_poll(struct pt_groups *gs, int first, int last);
/* Each group in use's high-water mark raised to its cumulative counters
 * now (adjust + live, the interval's accounts added), and into marks the
 * marks of every group there ever was, summed: what the groups' lines
 * have reported, or will, in all. */
void pt_groups_marks(struct pt_groups *gs, int64_t marks[PT_CTR_COUNT]);
/* The interval is reported: clear its values, free the empty groups
 * (their adjust kept in retired, their marks in retired_marks) that have
 * nothing left to report. */
void pt_groups_end_interval(struct pt_groups *gs);

#endif
