/* ledgerfolds: the ledger's CPU folds shared out. The kernel folds a
 * reaped process's CPU, exact, into its reaper's children counters; by
 * process or title, the exit records say whose it was (exits.c), and weigh each
 * process's share of the fold (their CPU is the scheduler tick's samples,
 * not the run time). A share waits in the ledger (struct pt_share) until
 * the reaper's counters show the fold, which is then given out in whole
 * ticks that add up to exactly the fold (ledger.h's invariants). */
#ifndef PROCTREE_LEDGERFOLDS_H
#define PROCTREE_LEDGERFOLDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting/ledger.h"

/* Exit records are followed; share: the folds they weigh are shared out
 * among the groups (by process or title). */
void pt_ledgerfolds_records_followed(struct pt_ledger *l, bool share);
/* No records are to come: the shares waiting are forgotten, and no fold
 * is shared out. */
void pt_ledgerfolds_records_stopped(struct pt_ledger *l);

/* A process's CPU, weight_us by its records, went to reaper's children
 * counters (or will when it is reaped): the share of their growth of the
 * group named name (its comm, its title's group). */
void pt_ledgerfolds_add_share(struct pt_ledger *l, const struct pt_account *reaper, const char *name,
                              int64_t weight_us);
/* A process whose records do not weigh it (some were lost, or its past
 * was not the tree's) went, or will go, to reaper's children counters:
 * the fold that holds it cannot be told apart, so it stays whole in the
 * reaper's group, and the shares that wait for it are let go, their CPU
 * in the reaper's group too. So a group is never given another
 * process's CPU. */
void pt_ledgerfolds_hold(const struct pt_ledger *l, struct pt_account *reaper);
/* Once an interval, after its last reads and before the count: give each reaper's unshared
 * fold to the groups of the shares that wait for it, by their weights; a
 * share whose reaper shows no fold yet waits (a few times). live finds a
 * live account by pid; then every live account is handed to
 * pt_ledgerfolds_given(). */
void pt_ledgerfolds_share(struct pt_ledger *l, struct pt_account *(*live)(const void *ctx, pid_t pid), const void *ctx);
void pt_ledgerfolds_given(const struct pt_ledger *l, struct pt_account *a);

#endif
