/* targetinterval: what a target's interval saw (struct pt_target_interval,
 * targetstate.h), turned into its line at the end (target.c). Only this
 * file writes it: every part tells it what happened, as it sees it, and
 * reads it. */
#ifndef PROCTREE_TARGETINTERVAL_H
#define PROCTREE_TARGETINTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "report/quantities.h"
#include "target/targetstate.h"

/* Our own CPU time, in seconds (pt_thread_cpu_seconds), was spent on the
 * target. */
void pt_interval_add_cpu(struct pt_target *t, double seconds);
/* The selected root was replaced (the service restarted). */
void pt_interval_add_restart(struct pt_target *t);
/* Reads were short of descriptors (enum pt_short bits): what they feed is
 * left out of this interval's lines. */
void pt_interval_add_short(struct pt_target *t, unsigned what);
/* A member could not be read (short of descriptors, or not whole), or a
 * process could not join. */
void pt_interval_add_vanished(struct pt_target *t);
/* A process started in the tree: it joined born in it, or its fork event
 * came and it was gone before it could join. */
void pt_interval_add_started(struct pt_target *t);
/* A process of the tree exited: a member found gone, or one known only
 * from its fork event. */
void pt_interval_add_exited(struct pt_target *t);
/* A poll read every member's statm: one more sample. */
void pt_interval_add_sample(struct pt_target *t);
/* The tree's sums of the gauges first to last, as one poll read them. */
void pt_interval_add_gauges(struct pt_target *t, const int64_t sum[PT_G_COUNT], enum pt_gauge first,
                            enum pt_gauge last);
/* A member's smaps_rollup was not due: its last values stood in. */
void pt_interval_add_pss_stale(struct pt_target *t);
/* A member that started at starttime (clock ticks after boot) left: the
 * block-I/O delay is shown only if it too started after the kernel began
 * timing it. */
void pt_interval_add_departure(struct pt_target *t, uint64_t starttime);
/* A member has percent of its soft limit of descriptors open, and can
 * open headroom more: the tree's worst share and least headroom. */
void pt_interval_add_fd_limit(struct pt_target *t, double percent, int64_t headroom);
/* The interval's last reads begin, kernel.task_delayacct on or not: the
 * block-I/O delay is read from now on while it is on, and the limits of
 * descriptors are counted again. Was it read over the interval ending? */
bool pt_interval_begin_end_reads(struct pt_target *t, bool delayacct);
/* The last reads are done: the live members' threads and open
 * descriptors (-1: not counted), whether the block-I/O delay is shown;
 * the members that leave from now on are the next interval's. */
void pt_interval_end_reads_done(struct pt_target *t, int64_t threads, int64_t fds, bool blkio_shown);
/* The interval lasted seconds: the seconds the counters' deltas span now,
 * since they were last reported (an interval short of descriptors keeps
 * its base, pt_interval_end). */
double pt_interval_lasted(struct pt_target *t, double seconds);
/* The interval's line is made: what it saw starts again from nothing. */
void pt_interval_end(struct pt_target *t);

#endif
