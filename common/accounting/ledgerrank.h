/* ledgerrank: the ledger's ranked breakdown (rank.h chooses the names;
 * this moves the groups and accounts to their slots, ledger.h's
 * invariants kept). */
#ifndef PROCTREE_LEDGERRANK_H
#define PROCTREE_LEDGERRANK_H

#include <stdint.h>

#include "accounting/ledger.h"

/* The breakdown's names ranked by by from now on (PT_RANK_SEEN: the
 * first seen hold the slots, no ranking). */
void pt_ledgerrank_set(struct pt_ledger *l, enum pt_rank_by by);
/* At the interval's end, before a's snapshot: a, named name, weighs what
 * it did this interval (rss_bytes: its resident memory at the last poll)
 * in the ranking when it is in "other" (a named group weighs by its line:
 * pt_ledger_group_deltas notes it). */
void pt_ledgerrank_account(struct pt_ledger *l, const struct pt_account *a, const char *name, int64_t rss_bytes);
/* After pt_ledger_end_interval: the next interval's names chosen from
 * the weights noted. A group that loses its slot is merged into "other"
 * at once, adjust, marks and base (pt_groups_merge_other): its accounts
 * follow it there at pt_ledgerrank_follow; a name that gains one takes
 * a free slot. Then every live account is handed to
 * pt_ledgerrank_follow (with a breakdown that partitions the members). */
void pt_ledgerrank_choose(struct pt_ledger *l);
/* After pt_ledgerrank_choose: the group that what was in group counts in
 * now: "other" for a group that lost its slot (a departed account's, kept
 * by index: by cgroup), else group. */
int32_t pt_ledgerrank_regrouped(const struct pt_ledger *l, int32_t group);
/* a (live), named name: into "other" when its group lost its slot; out
 * of "other" into its name's slot when its name has one now, with all it
 * counted so far left in "other" (pt_ledgerrank_regroup_all). */
void pt_ledgerrank_follow(struct pt_ledger *l, struct pt_account *a, const char *name);
/* a moves to group to with nothing: all it counted so far (its value, its
 * debts included) stays in its old group, and only what it does from now
 * on counts in to. Neither group's G moves, nor their marks. */
void pt_ledgerrank_regroup_all(struct pt_ledger *l, struct pt_account *a, uint32_t to);

#endif
