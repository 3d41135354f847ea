/* sampling: a target's reads at each cadence: memory, and the counters
 * of the members nobody in the tree would absorb, at every poll; PSS on
 * its own timer or at the interval's end; every counter, the context
 * switches, the descriptors and the threads at the interval's end. Each
 * is handed the membership's parts (membership.h: a read may find a
 * member gone, and tells the ledger and the interval), and its own part
 * or a cgroup target's cgroups where it writes them. */
#ifndef PROCTREE_SAMPLING_H
#define PROCTREE_SAMPLING_H

#include <stdbool.h>

#include "bpf/taskrec.h"
#include "tree/membership.h"

/* The fast poll: memory gauges of every member, counters of the members
 * nobody in the tree would absorb. */
void pt_sampling_poll(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_cgroups *cg);

/* A pass of the target's task iterator (its collector's: shared) for one
 * round of reads, of mode (taskiter.h), and its end: the reads between
 * them take what it holds, the others their files. Nothing without one.
 * A FULL pass lists the members' TCP sockets where sockets (the
 * interval end's, which targetnet.c takes after the reads). */
void pt_sampling_snapshot(const struct pt_target *t, enum pt_taskrec_mode mode, bool sockets);
void pt_sampling_forget_snapshot(const struct pt_target *t);
/* Does a pass cost less than reading each member's file of one kind? */
bool pt_sampling_pass_pays(const struct pt_target *t);
/* One smaps_rollup sample of every member (PSS on its own cadence). */
void pt_sampling_pss(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_sampling *s);
/* The interval's last reads, in three steps its target makes (target.c,
 * pt_target_end_reads): this begins them (one snapshot for the round, the
 * last poll of memory and of the cgroups), then every member's counters
 * (membership.c, pt_membership_read_all_counters), then the finish: PSS,
 * the context switches, titles, descriptors. The exit records that follow
 * are drained before pt_target_end_interval (their CPU is shared out of
 * the folds these reads show: exits.c). boottime is pt_boottime() when the
 * interval ended (its line's stamp), the oldest member's age is taken at
 * it. blkio_since is NAN while kernel.task_delayacct is 0; else the kernel
 * counts the block-I/O waits of the processes started after it (same
 * clock; -INFINITY: all, since boot), and the delay is read and shown as
 * struct pt_target's blkio_read and blkio_shown say. Returns whether the
 * delay was read over the interval ending, for the finish. */
bool pt_sampling_begin_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                                 struct pt_target_cgroups *cg, double boottime, double blkio_since);
/* now is the collector's clock (pt_collector_tick's), for what is read
 * only once in a while: the descriptor limits. */
void pt_sampling_finish_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                                  struct pt_target_sampling *s, double now, double blkio_since, bool was_read);
/* The breakdown by thread name: every live member's threads, read now,
 * credited by name (above). */
void pt_sampling_read_threads(const struct pt_target *t, const struct pt_membership_parts *mp,
                              struct pt_target_sampling *s);

#endif
