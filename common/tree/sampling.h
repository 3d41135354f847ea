/* sampling: the reads of each cadence: memory, and the counters of the
 * members nobody in the tree would absorb, at every poll; PSS on its own
 * timer or at the interval's end; every counter, the context switches,
 * the descriptors and the threads at the interval's end. Each is handed
 * the membership's parts (a read may find a member gone, and tells the
 * ledger and the interval), and its own part or a cgroup target's
 * cgroups where it writes them. */
#ifndef PROCTREE_SAMPLING_H
#define PROCTREE_SAMPLING_H

#include "tree/membership.h"
#include "tree/targetstate.h"

/* The fast poll: memory gauges of every member, counters of the members
 * nobody in the tree would absorb. */
void pt_sampling_poll(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_cgroups *cg);
/* One smaps_rollup sample of every member (PSS on its own cadence). */
void pt_sampling_sample_pss(const struct pt_target *t, const struct pt_membership_parts *mp,
                            struct pt_target_sampling *s);
/* The interval's last reads: every member's counters, memory, switches
 * and descriptors; the exit records that follow them are drained before
 * pt_target_end_interval (their CPU is shared out of the folds these
 * reads show: exits.c). now is the collector's clock (pt_collector_tick's),
 * for what is read only once in a while: the descriptor limits.
 * blkio_since is NAN while kernel.task_delayacct is 0; else the kernel
 * counts the block-I/O waits of the processes started after it (same
 * clock; -INFINITY: all, since boot), and the delay is read and shown as
 * struct pt_target's blkio_read and blkio_shown say. */
void pt_sampling_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                           struct pt_target_sampling *s, struct pt_target_cgroups *cg, double now, double blkio_since);
/* The breakdown by thread name: every live member's threads, read now,
 * credited by name (membership.h). */
void pt_sampling_read_threads(const struct pt_target *t, const struct pt_membership_parts *mp,
                              struct pt_target_sampling *s);

#endif
