/* ledger: the accounting of one tree and of its breakdown groups, with no
 * I/O (docs/DESIGN.md, "Accounting"; docs/METRICS.md, "Accounting" and
 * "Breakdown"). It is told what happened: an account (a member's) joined
 * with or without its past, was read, changed group, left reaped by
 * another account or outside the tree; an exit record brought usage; a
 * reaper's fold is to be shared out (ledgerfolds.h); the interval ended.
 *
 * The tree's cumulative counter for each quantity is
 *
 *     C = adjust + sum over live accounts of counted(account)
 *
 * where the kernel keeps the inclusive counters continuous for us: a child
 * reaped by a member moves its CPU and faults into the parent's c* fields
 * and its I/O into the parent's own io. adjust corrects the two cases the
 * kernel does not cover:
 *   - an account that leaves without being reaped by a live one (reaped by
 *     init, a subreaper, or whoever started the root): adjust += its last
 *     values, so what it did stays counted;
 *   - an account that joins as (part of) a new root's tree, whose past is
 *     not ours to report: adjust -= its values at join.
 * Descendants born while we watch join with their whole (short) past,
 * which happened inside the tree.
 *
 * An account reaped by another (its reaper) is not always in the reaper's
 * counters yet: a reaper read just before the reaping shows it at its next
 * read only (a transient dip), and one that ignores SIGCHLD, or a child
 * re-parented and reaped by init, never brings it (a permanent loss). So
 * the reaper owes the departed account's last values and counts in C as
 * at least its counters at the last interval's end plus what it owes
 * (counted(): the larger of that due and its counters); at its first read
 * in a later round (after a later end) a counter still below due proves
 * the usage never arrived, and the owed values move into adjust. C thus
 * neither dips nor stays above what was really done once the debt is
 * settled, and only the departed account's unseen last moments are lost.
 *
 * With a breakdown by process, title or cgroup each group's G is built the same way, over
 * its accounts, and every change to the tree's adjust is made to one
 * group's by the same call (pt_ledger_credit()); moves between groups keep the sum.
 *
 * Invariants (pt_ledgercheck(), ledgercheck.h, asserts them; the unit tests call it
 * after every event):
 *   - by process, title or cgroup, the groups add up to the tree, counter by counter,
 *     and so do their high-water marks: the tree's mark is the groups'
 *     summed, so their lines add up to the tree's over any run (a group
 *     holds a dip of its own, the tree does not fill it with another's work);
 *   - reported deltas are never negative: they are deltas of high-water
 *     marks, never above the mark;
 *   - a debt is never negative nor more than is due (0 <= owed <= due),
 *     and is settled only by the reaper's own counters, at a read in a
 *     later round or of its zombie;
 *   - a reaper's fold is given out in whole ticks that add up to exactly
 *     the fold, so no group is left below what it reported;
 *   - a zombie's exact CPU (below) is never negative, nor is the part of a
 *     debt it makes more than the debt (0 <= owed_exact <= owed);
 *   - no interval reports more CPU (user + system), the tree's or any
 *     group's, than its length x the CPUs can run, rounded up to a tick
 *     (cpu_reported <= cpu_max), but the last line of a tree or a group
 *     with no live member; what is over waits between the base and the
 *     mark (base <= mark), so no tick is lost or reported twice.
 *
 * A zombie's stat truncates its user and its system CPU each to a clock
 * tick, and its reaper's fold adds them exact (summed in nanoseconds,
 * then truncated once): so a late reap of many short children would
 * bring up to two ticks a child in its interval, more CPU than the host
 * has there. Where the zombie's exit records give its exact run time,
 * what its truncated stat leaves out counts with the zombie (exact_cpu,
 * carried to whole ticks over many zombies), in the interval it ran in;
 * its reaper then owes it too, but only as rounding (owed_exact): a fold
 * short of it by a tick or two is still the fold, and at a reap that
 * never comes (reaped outside the tree) it stays counted. What a fold is
 * short by stays owed, the reaper counting at due until its counters pass
 * it (a later fold brings the truncated rest, or its own work does): so
 * neither the tree nor the reaper's group dips, and a dip the work of
 * other groups would fill in the tree alone cannot leave the groups'
 * lines above the tree's.
 *
 * An interval's CPU is bounded by the host (cpus: the CPUs online). A
 * live member's stat truncates its user and its system time each to a
 * tick, so a counter read at an interval's two ends grows by up to a tick
 * more than what ran between them: a tree of 300 live children once
 * reported 3.98 CPU s in 1.76 s of a 2-CPU host, as the truncation of the
 * last read gave its lag at once. No /proc file gives the exact run time
 * of a process whole (schedstat is per thread, and an exited thread's is
 * only in stat's truncated sum), and a ledger that counted it would need
 * finer units than the ticks the kernel folds children in. So the deltas
 * report at most what the CPUs can run in the interval's length (rounded
 * up to a tick, so a tree that keeps every CPU busy never falls behind by
 * the rounding), cut in the ratio of user to system, and leave the rest
 * between the base and the mark for the next lines: the placement in
 * time is bounded, the total stays the kernel's. What waits is only what
 * the kernel showed late, at most the lag of every member (two ticks
 * each) and the folds of the zombies reaped. A group that empties, and
 * the tree once no account is live, report all that waits: no later
 * line would show it (counter_deltas in ledger.c).
 *
 * Who owns what: the ledger owns its groups table and the shares waiting
 * for folds. Accounts live in the caller's members, which hand them in at
 * every event; the ledger keeps no pointer to one between calls (a share
 * names its reaper by pid, found again through the caller's lookup). */
#ifndef PROCTREE_LEDGER_H
#define PROCTREE_LEDGER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting/groups.h"
#include "accounting/rank.h"
#include "procfs/procfile.h"
#include "report/quantities.h"

/* One member's part of the ledger. The member's reads fill ctr, own and
 * the has_* flags; the rest is the ledger's. */
struct pt_account {
    pid_t pid;
    int32_t group;             /* its breakdown group's slot (by process, title or cgroup), or -1 */
    int64_t ctr[PT_CTR_COUNT]; /* last values read, inclusive of reaped children */
    /* Its own part of ctr at the last read: stat's utime, stime, minflt
     * and majflt without their c* twins; io does not tell its own from its
     * children's, so ctr's there. */
    int64_t own[PT_CTR_COUNT];
    bool has_stat, has_io; /* which halves of ctr hold real values (io: the member's own now) */
    bool io_fresh;         /* the last read of the counters refreshed io */
    /* Usage of accounts this one reaped that its counters have not shown
     * yet (see the header). */
    int64_t ctr_at_end[PT_CTR_COUNT]; /* ctr as of the last interval's end, or the join */
    int64_t owed[PT_CTR_COUNT];       /* last values of the accounts it absorbed */
    int64_t due[PT_CTR_COUNT];        /* what ctr reaches once they have arrived */
    uint64_t owed_round;              /* the ledger's round when it last took a debt */
    bool owes;
    /* Exited (its counters final), the ticks by enum pt_cpu its exit
     * records' exact run time adds to its truncated stat (counted with
     * it), once has_exact; and of owed, what such accounts it absorbed
     * added: rounding, not proof of a fold (pt_ledger_settle). */
    int64_t exact_cpu[PT_CPU_COUNT];
    bool has_exact;
    int64_t owed_exact[PT_CPU_COUNT];
    /* With folds shared (exit records, by process or title): its children's CPU
     * (stat's c* fields: the exact run time of the processes it reaped)
     * at the last read, how much of their growth since is not yet given
     * to those processes' groups (less while a departed account's last
     * values wait for their fold), and the weight of the shares that wait
     * for it; all by enum pt_cpu. */
    int64_t children_cpu[PT_CPU_COUNT], unshared_cpu[PT_CPU_COUNT];
    int64_t share_weight_us;
    /* Its next fold holds a process not weighed (pt_ledgerfolds_hold): the
     * shares of folds it waits for it, as a share does; 0: none held. */
    unsigned fold_held;
};

/* A process's CPU that the kernel folds, exact, into a reaper's children
 * counters, waiting for that fold to be shared out by the weights its
 * exit records give. */
struct pt_share {
    pid_t reaper;
    char name[PT_GROUP_NAME_MAX]; /* the group it goes to */
    int64_t weight_us;            /* its records' CPU (tick samples) */
    unsigned drains;              /* shares of folds it has waited */
};

/* Where the interval is, in the order the ledger asserts: its reads and
 * events; pt_ledger_add_account() of every live account (and their snapshots);
 * the deltas, the tree's and then its groups'; pt_ledger_end_interval(). */
enum pt_ledger_phase { PT_LEDGER_READING, PT_LEDGER_COUNTING, PT_LEDGER_REPORTING };

struct pt_ledger {
    double ticks_per_second;
    unsigned cpus;           /* what an interval's CPU is bounded by (see the header), 0: none */
    bool partitions;         /* each member is in one group of groups.list, whose sum is the tree */
    bool shares_folds;       /* exit records give folds out to the groups (by process or title) */
    struct pt_groups groups; /* the breakdown's; list NULL without one */
    uint64_t round;          /* intervals ended: debts are checked in a later round */
    int64_t adjust[PT_CTR_COUNT];
    int64_t high_water[PT_CTR_COUNT], interval_base[PT_CTR_COUNT];
    int64_t cpu_rest_us[PT_CPU_COUNT];   /* as a group's, for usage the tree adds without one */
    int64_t exact_rest_us[PT_CPU_COUNT]; /* the rounding of the zombies' exact CPU so far */
    struct pt_share *shares;
    size_t n_shares, cap_shares;
    /* this interval */
    bool stat_seen, io_seen;
    unsigned tc_seen;           /* the per-thread counts read (enum pt_tcount bits) */
    int64_t tc[PT_TC_COUNT];    /* and done */
    int64_t tree[PT_CTR_COUNT]; /* C, once pt_ledger_add_account() began */
    enum pt_ledger_phase phase;
    /* the last deltas' CPU (user + system, ticks) and the most the
     * interval could hold (-1: unbounded) */
    int64_t cpu_reported, cpu_max;
    bool cpu_waits; /* they left CPU for the next line (which shows it) */
    /* --by-rank (rank.h): the weights noted this interval, and per named
     * slot whether it is held (before a choice) or lost its name to
     * "other" (after); NULL when the breakdown is not ranked */
    struct pt_rank rank;
    bool *rank_slot;
};

/* cpus: the CPUs a tree can run on at once (0: no bound on an
 * interval's CPU); groups: the breakdown's limit of named groups, 0 without a breakdown;
 * partitions: each member is in one of them, by its name or its cgroup
 * (the groups add up to the tree), else they are thread names. */
void pt_ledger_init(struct pt_ledger *l, double ticks_per_second, unsigned cpus, uint32_t groups, bool partitions);
void pt_ledger_free(struct pt_ledger *l);

/* The counter as the tree counts it: the last value read, or what the
 * accounts it absorbed are due to bring when that is more. */
int64_t pt_ledger_account_value(const struct pt_account *a, int k);
/* Does a hold real values of counter k (its stat or its io was read)? */
static inline bool pt_account_has(const struct pt_account *a, int k)
{
    return k < PT_CTR_IO_END ? a->has_io : a->has_stat;
}

/* ---- membership events ---------------------------------------------- */

/* a, just read for the first time, joins in group (-1: none). baseline:
 * as part of a new root's tree, its past is not counted. */
void pt_ledger_join(struct pt_ledger *l, struct pt_account *a, int32_t group, bool baseline);
/* a's halves were read (or tried): mark them seen this interval, in the
 * tree and its group. */
void pt_ledger_seen(struct pt_ledger *l, const struct pt_account *a);
/* a read of a's counters ended; had_io: it held io before. An io that
 * stopped answering (a setuid exec, ptrace access gone) leaves what it
 * showed counted, as an account that left alone does, and its io from
 * then on out; one that starts answering counts from now on, as a root
 * joined does. */
void pt_ledger_io_changed(struct pt_ledger *l, struct pt_account *a, bool had_io);
/* a's counters were read: note how much its children's CPU grew, to
 * share out among the groups of what it reaped (when folds are shared). */
void pt_ledger_read(struct pt_ledger *l, struct pt_account *a);
/* After a read of a that follows its debts (a later round, or final: a
 * zombie's counters): settle them (see the header). An io debt that this
 * read could not refresh waits for a read that does. */
void pt_ledger_settle(struct pt_ledger *l, struct pt_account *a, bool final);
/* a left: reaped by reaper (a live account, whose counters carry or will
 * carry a's usage: it owes it) or outside the tree (NULL: a's last values
 * stay counted). */
void pt_ledger_leave(struct pt_ledger *l, const struct pt_account *a, struct pt_account *reaper);

/* ---- the breakdown's groups ------------------------------------------ */

/* The slot of the group named name (a comm, a cgroup's directory name),
 * taking a free slot for a new name; "other"'s when none is free. */
uint32_t pt_ledger_group_named(struct pt_ledger *l, const char *name);
/* a, in a group by its name, is named name now (an exec; a new title):
 * it moves to that name's group when it is in another, with what it did
 * since the last interval's end (or its join); what it did before stays
 * in its old group. */
void pt_ledger_renamed(struct pt_ledger *l, struct pt_account *a, const char *name);
/* A poll read a's gauges [first, last] (enum pt_gauge) as now[first ..
 * last]: into its group's sums of the poll. */
void pt_ledger_poll_gauges(struct pt_ledger *l, const struct pt_account *a, const int64_t *now, int first, int last);
/* The poll of gauges [first, last] is over: with groups that partition
 * the members, each group's sums of it into its extrema. */
void pt_ledger_end_poll(struct pt_ledger *l, int first, int last);
/* a has fds descriptors open, counted at the interval's end: its group's. */
void pt_ledger_fds(struct pt_ledger *l, const struct pt_account *a, int64_t fds);
/* Group g (0 .. groups.limit, "other" last) as this interval left it. */
const struct pt_group *pt_ledger_group(const struct pt_ledger *l, uint32_t g);

/* ---- for the ledger's other files (ledgerrecords.c, ledgerrank.c) --- */

/* Group slot g, as pt_groups_find() gave it. */
struct pt_group *pt_ledger_group_at(const struct pt_ledger *l, int32_t g);
/* v (which may be negative) to counter k of the tree and of group (-1:
 * none): the one way the tree's adjust changes, so the groups add up to
 * it. */
void pt_ledger_credit(struct pt_ledger *l, int32_t group, int k, int64_t v);
/* v of counter k from group from to group to: the sum stays. */
void pt_ledger_move_counter(struct pt_ledger *l, int32_t from, uint32_t to, int k, int64_t v);
/* What a group or an account weighs in the ranking (rank.h): of the
 * interval's deltas, or its resident memory. */
int64_t pt_ledger_rank_weight(enum pt_rank_by by, const int64_t delta[PT_CTR_COUNT], int64_t rss);

/* ---- the ranked breakdown (rank.h, ledgerrank.h) ---------------------- */

/* Are the names ranked (pt_ledgerrank_set, not PT_RANK_SEEN)? */
static inline bool pt_ledger_ranks(const struct pt_ledger *l)
{
    return l->rank_slot != NULL;
}

/* ---- the interval ----------------------------------------------------- */

/* A new round begins (the interval's last reads are next). */
void pt_ledger_next_round(struct pt_ledger *l);
/* At the interval's end, every live account once: its counted counters
 * into the tree's and its group's sums, and its threads (when its stat
 * was read) into its group's. */
void pt_ledger_add_account(struct pt_ledger *l, const struct pt_account *a, int64_t threads);
/* ... then the interval's deltas, never negative, of the tree and of
 * group g (before the lines read stat_seen: CPU deferred from the last
 * line sets it, ledger.c's counter_deltas); keep_base leaves the work for the next interval (some member
 * could not be read). seconds: how long the interval lasted, which
 * bounds its CPU (see the header; NAN or infinite: unbounded). */
void pt_ledger_deltas(struct pt_ledger *l, bool keep_base, double seconds, int64_t delta[PT_CTR_COUNT]);
void pt_ledger_group_deltas(struct pt_ledger *l, uint32_t g, bool keep_base, int64_t delta[PT_CTR_COUNT]);
/* ... and, once counted, each live account's baseline for debts taken
 * from now on. */
void pt_ledger_snapshot(const struct pt_ledger *l, struct pt_account *a);
/* The interval is reported: clear what was its own. */
void pt_ledger_end_interval(struct pt_ledger *l);

#endif
