/* exits: what the kernel's exit records (exitrecords.h) settle for a
 * target (see exits.c). Its part, struct pt_target_exits (targetstate.h),
 * is written here only, handed to each function; the drains are handed the
 * membership's parts too (membership.h), since a record settles a member,
 * joins a zombie, moves usage in the ledger. */
#ifndef PROCTREE_EXITS_H
#define PROCTREE_EXITS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "netlink/exitrecords.h"
#include "report/lines.h"
#include "tree/membership.h"
#include "tree/targetstate.h"

/* The kernel's exit records of one drain (exitrecords.h); complete is
 * false when the kernel dropped some. A record counts for the tree when
 * its process is a member (live, or left since the last drain) or a child
 * of one (a process that lived less than a poll). It brings the exited
 * thread's context switches (docs/METRICS.md, Accounting) and, for a
 * process's main thread, its exit status and peak RSS. */
void pt_exits_follow(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp,
                     const struct pt_exitrecord *records, size_t n, bool complete);
/* The collector stopped listening for exit records: the target works as
 * if it never had them (no exit metrics, no last moments from records),
 * dropping what waited for records to come. */
void pt_exits_stop(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp);
/* The kernel's process events say pid exited at when (pt_now's clock):
 * a member's, or a departed one's, last moments end there. */
void pt_exits_note_exit(const struct pt_target *t, pid_t pid, double when);
/* pid, forked in the tree by parent and gone before it could join, has
 * exited: with exit records followed, its parent is kept until the next
 * drain, which finds whose counters its usage, and its children's, went
 * to. */
void pt_exits_unseen_gone(struct pt_target_exits *x, pid_t pid, pid_t parent);
/* The interval's counts from the records onto the tree's line, where
 * they are in use; failed, killed and the peak left out of an interval
 * that lost records. */
void pt_exits_put(const struct pt_target_exits *x, struct pt_line *line);
/* The interval's line is made: the records' counts start again. */
void pt_exits_end_interval(struct pt_target_exits *x);
void pt_exits_free(struct pt_target_exits *x);

#endif
