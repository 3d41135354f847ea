/* targetlines: what an interval's end puts on a target's lines beside
 * the tree's deltas and gauges, which target.c's fill_report sets: the
 * tree's live members (their per-thread counts, descriptors, processes,
 * threads, states, the oldest's age), its counts of the interval
 * (restarts, starts, exits, samples, ...), the exit records', the
 * GPU's and the TCP sockets' amounts; the breakdown's lines whole (each
 * group's gauges, deltas, live counts, GPU, TCP and cgroup values, their
 * keys made unique);
 * and, short of descriptors, what none of them may report. The target
 * is read (const); what is written, the group lines and the ledger (the
 * groups' deltas), target.c hands down. */
#ifndef PROCTREE_TARGETLINES_H
#define PROCTREE_TARGETLINES_H

#include <stdint.h>

#include "report/lines.h"
#include "report/report.h"
#include "report/units.h"
#include "tree/targetstate.h"

/* The tree's line, its deltas, gauges and stat_seen already set: its
 * live members (processes, threads, fds: -1 not counted) and the
 * interval's counts. */
void pt_targetlines_put_tree(const struct pt_target *t, struct pt_line *line, int64_t processes, int64_t threads,
                             int64_t fds);
/* The breakdown's lines into gl: every group in use this interval, each
 * carrying what the catalog puts on its breakdown's lines, of an
 * interval of seconds whose counters' deltas span counter_seconds. */
void pt_targetlines_groups(const struct pt_target *t, struct pt_ledger *ledger, struct pt_target_group_lines *gl,
                           double seconds, double counter_seconds, const struct pt_units *units);
/* Short of descriptors: what was not read whole left out of report and
 * of the breakdown's lines, said in one line per interval. */
void pt_targetlines_leave_out_unknown(const struct pt_target *t, struct pt_report *report);

#endif
