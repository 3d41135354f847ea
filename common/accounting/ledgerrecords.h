/* ledgerrecords: what exit records and threads' reads bring the ledger
 * (ledger.h): per-thread counts, a thread's CPU by its name, a process's
 * exact CPU and its usage the tree never saw, faults and I/O moved to
 * the group they belong to. CPU in microseconds is carried to whole
 * ticks, so that many short processes lose nothing to rounding. */
#ifndef PROCTREE_LEDGERRECORDS_H
#define PROCTREE_LEDGERRECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "accounting/ledger.h"

/* A record's usage is a counters' array whose two CPU slots hold
 * microseconds, as the record gives them, not ticks: these name them so
 * (the ledger carries them to ticks, carry_ticks in ledgerrecords.c). */
enum { PT_REC_USER_US = PT_CTR_USER_TICKS, PT_REC_SYSTEM_US = PT_CTR_SYSTEM_TICKS };

/* a has exited and its counters were read (final); exact_us is its
 * own CPU (enum pt_cpu) as its exit records' exact run time gives it,
 * split as /proc splits it (pt_ledgerrecords_split_run_time): what its truncated own
 * ticks leave out (less than a tick each) counts with it from now on
 * (once). */
void pt_ledgerrecords_exact_cpu(struct pt_ledger *l, struct pt_account *a, const double exact_us[PT_CPU_COUNT]);
/* A run time of run microseconds split between user and system as the
 * kernel splits it for /proc (cputime_adjust() in kernel/sched/cputime.c,
 * with prev_cputime's clamps): in the ratio of the tick's samples, never
 * below what it showed before. shown holds, in microseconds, what it
 * showed before (user, system) and takes what it shows now. */
void pt_ledgerrecords_split_run_time(double run, double user_samples, double system_samples,
                                     double shown[PT_CPU_COUNT]);
/* Per-thread counts (context switches, delays) v of which (enum
 * pt_tcount bits: those read, v 0 where nothing is owed) done in the
 * tree, and in group (-1: none). */
void pt_ledgerrecords_credit_tcounts(struct pt_ledger *l, int32_t group, const int64_t v[PT_TC_COUNT], unsigned which);
/* The breakdown by thread name: CPU ticks and (when ctx) switches a
 * thread of that name did, to its group alone. */
void pt_ledgerrecords_credit_thread(struct pt_ledger *l, const char *comm, int64_t user_ticks, int64_t system_ticks,
                                    bool ctx, int64_t voluntary, int64_t involuntary);
/* ... and of a thread that exited, settled by its exit record: its CPU
 * since its last read in microseconds (by enum pt_cpu, never negative),
 * carried to whole ticks over its group's exits, so that many short
 * threads lose nothing to rounding; and its switches since. */
void pt_ledgerrecords_credit_thread_exit(struct pt_ledger *l, const char *comm, const int64_t cpu_us[PT_CPU_COUNT],
                                         int64_t voluntary, int64_t involuntary);
/* Usage v (CPU in microseconds) that left the tree with a process it
 * never saw: the tree's, and group's (-1: none). */
void pt_ledgerrecords_add_lost(struct pt_ledger *l, int32_t group, const int64_t v[PT_CTR_COUNT]);
/* Faults and I/O v that the kernel folded into from's counters belong to
 * group to (CPU moves as a share of the fold: ledgerfolds.h). */
void pt_ledgerrecords_move(struct pt_ledger *l, const struct pt_account *from, uint32_t to,
                           const int64_t v[PT_CTR_COUNT]);

#endif
