/* departures: the members of a target gone since the last drain of exit
 * records, each with what settling it from the records still to come
 * needs (tree/exits.c). No I/O.
 *
 * Invariant (pt_departures_check() returns it broken): the index finds
 * the last record of each pid at its place (a pid reused within one drain
 * leaves twice: the records of the second are the second's).
 *
 * Ownership: the list owns its records and, in each, the threads' usage
 * handed to it (pt_departures_clear frees them); a record's fields are
 * whoever fills or settles it. A pointer into the list lasts until the
 * next add (the array may move). */
#ifndef PROCTREE_DEPARTURES_H
#define PROCTREE_DEPARTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "member/memberstate.h"
#include "member/threads.h"
#include "report/quantities.h"
#include "util/pidmap.h"

/* A member gone since the last drain of exit records, with what settling
 * it from the records still to come needs (exits.c). */
struct pt_departure {
    pid_t pid;
    pid_t reaper; /* the member that reaped it; 0: reaped outside the tree */
    /* the name of its group at its end (by process its comm, by title its
     * title's group): a slot may be freed and taken by another name meanwhile */
    char group_name[PT_GROUP_NAME_MAX];
    int32_t group; /* its ledger group when it left (by cgroup), or -1 */
    bool has_stat, has_io;
    bool whole;                     /* recorded will hold all of its own usage */
    int64_t own[PT_CTR_COUNT];      /* its own usage at its last read */
    int64_t recorded[PT_CTR_COUNT]; /* its exited threads' (CPU in microseconds) */
    int64_t recorded_run_us;        /* their exact run time; -1: a record lacked it */
    double read_at;                 /* its last read (pt_now's clock) */
    double exited_at;               /* its exit, same clock; 0: not known yet */
    double start;                   /* its start, same clock (its fork event's, or
                                       its starttime's, to a clock tick) */
    int64_t life_us;                /* start to exit, once its main thread's record came */
    unsigned tc_counted; /* its per-thread counts that count (tree/membership.c's pt_membership_credit_tcounts) */
    int64_t tc_base[PT_TC_COUNT]; /* what its last reads counted of the threads
                                     whose records are still to come */
    /* --by thread: its threads' usage as their reads credited it, for
     * their records still to come (owned: freed when settled) */
    struct pt_thread_usage main_usage;
    struct pt_threads threads;
    bool threads_count_past; /* a thread of it not read counts whole */
};

struct pt_departures {
    struct pt_departure *list;
    size_t n, cap;
    struct pt_pidmap index; /* pid -> its last place in list */
};

/* A record for pid, zeroed but for its pid, found by pid from now on. */
struct pt_departure *pt_departures_add(struct pt_departures *ds, pid_t pid);
/* The last record of pid, or NULL. */
struct pt_departure *pt_departures_of(const struct pt_departures *ds, pid_t pid);
/* Every record forgotten (their threads' usage freed); the list empty. */
void pt_departures_clear(struct pt_departures *ds);
void pt_departures_free(struct pt_departures *ds);

/* Does the invariant hold? NULL, or it in words (why: its details). */
const char *pt_departures_check(const struct pt_departures *ds, char *why, size_t whylen);

#endif
