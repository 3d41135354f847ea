/* interval: what one target's interval saw, with no I/O, turned into its
 * line at the end (target.c). Its parts tell it what they see
 * (pt_interval_add_...; the GPU's memory, pt_interval_set_gpu), the last
 * reads of the interval begin and end (pt_interval_begin_end_reads,
 * pt_interval_end_reads_done), and its end
 * starts it again (pt_interval_end). Only these functions write a struct
 * pt_interval; the target's line reads it.
 *
 * Invariants (pt_interval_check() returns the first one broken):
 *   - counts (samples, vanished, started, exited, pss_stale, restarts) and
 *     our own CPU time are never negative;
 *   - each gauge's extrema hold min <= max once it has a sample;
 *   - fd_limit_known: the worst share is at least 0 and the least headroom
 *     never negative;
 *   - counter_seconds never negative. */
#ifndef PROCTREE_INTERVAL_H
#define PROCTREE_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "report/quantities.h"
#include "report/report.h"

struct pt_interval {
    struct pt_extrema gauges[PT_G_COUNT];
    int64_t samples, vanished, started, exited, pss_stale;
    int64_t bpf_reads; /* members' counters the task iterator's snapshots gave */
    int64_t restarts;  /* the root replaced (targetlines.c's has_restarts) */
    /* Our own CPU since the line's window began; once the window is
     * closed (pt_interval_close_cpu), what the line says is cpu_line, and
     * cpu_seconds gathers the end's own work for the next line. */
    double cpu_seconds, cpu_line;
    bool cpu_closed;
    unsigned short_of_fds;  /* enum pt_short bits of this interval */
    double counter_seconds; /* since the counters were last reported */
    bool end_read;          /* pt_target_end_reads() done for this interval: */
    double ended_boottime;  /* pt_boottime() when it ended, the moment its line is stamped */
    int64_t end_fds;
    /* The block-I/O delay is read and credited while kernel.task_delayacct
     * was 1 at the last interval's end (blkio_read), and shown only when
     * it was 1 at both ends and the kernel counted every process of the
     * interval, each started after it was switched on (pt_delayacct's
     * since): the interval it is switched on in is a base, and a tree
     * with older processes is left out, never an undercount. */
    bool blkio_read, blkio_shown;
    bool departed_any;                 /* members left since the last end, */
    uint64_t departed_first_starttime; /* the earliest started of them */
    /* Of the live members whose open descriptors and soft limit of them
     * were both read at the interval's end (fd_limit_known): the highest
     * share of its limit one has open, in percent, and the fewest more one
     * can open (0 at or past its limit). */
    bool fd_limit_known;
    double fd_limit_worst_percent;
    int64_t fd_headroom_least;
};

/* Our own CPU time, in seconds (pt_thread_cpu_seconds), was spent on the
 * target. */
void pt_interval_add_cpu(struct pt_interval *iv, double seconds);
/* The line's wall time ends now: the CPU spent so far is the line's, what
 * the interval's end does from here is the next line's. The end's work (its
 * reads, a dump of the host's sockets) runs after the line's last moment,
 * so counted in the line it could pass what the CPUs can run in it. */
void pt_interval_close_cpu(struct pt_interval *iv);
/* Our own CPU the line says, in seconds. */
double pt_interval_line_cpu(const struct pt_interval *iv);
/* The selected root was replaced (the service restarted). */
void pt_interval_add_restart(struct pt_interval *iv);
/* Reads were short of descriptors (enum pt_short bits): what they feed is
 * left out of this interval's lines. */
void pt_interval_add_short(struct pt_interval *iv, unsigned what);
/* A member could not be read (short of descriptors, or not whole), or a
 * process could not join. */
void pt_interval_add_vanished(struct pt_interval *iv);
/* A process started in the tree: it joined born in it, or its fork event
 * came and it was gone before it could join. */
void pt_interval_add_started(struct pt_interval *iv);
/* A process of the tree exited: a member found gone, or one known only
 * from its fork event. */
void pt_interval_add_exited(struct pt_interval *iv);
/* A member's counters came from the task iterator's snapshot. */
void pt_interval_add_bpf_read(struct pt_interval *iv);
/* A poll read every member's statm: one more sample. */
void pt_interval_add_sample(struct pt_interval *iv);
/* The tree's sums of the gauges first to last, as one poll read them. */
void pt_interval_add_gauges(struct pt_interval *iv, const int64_t sum[PT_G_COUNT], enum pt_gauge first,
                            enum pt_gauge last);
/* The tree's GPU memory samples so far this interval (targetgpu.h's
 * extrema, taken at the discoveries and the interval's end, summed over
 * the host's GPUs: none where it has none or the last DRM read was cut
 * short): the GPU gauge's, in place of what it had. */
void pt_interval_set_gpu(struct pt_interval *iv, struct pt_extrema memory);
/* A member's smaps_rollup was not due: its last values stood in. */
void pt_interval_add_pss_stale(struct pt_interval *iv);
/* A member that started at starttime (clock ticks after boot) left: the
 * block-I/O delay is shown only if it too started after the kernel began
 * timing it. */
void pt_interval_add_departure(struct pt_interval *iv, uint64_t starttime);
/* A member has percent of its soft limit of descriptors open, and can
 * open headroom more: the tree's worst share and least headroom. */
void pt_interval_add_fd_limit(struct pt_interval *iv, double percent, int64_t headroom);
/* The interval's last reads begin, for the interval that ended at
 * boottime (pt_boottime(), when its line was stamped), kernel.task_delayacct
 * on or not: the block-I/O delay is read from now on while it is on, and
 * the limits of descriptors are counted again. Was it read over the
 * interval ending? */
bool pt_interval_begin_end_reads(struct pt_interval *iv, double boottime, bool delayacct);
/* The last reads are done: the live members' open descriptors (-1: not
 * counted), whether the block-I/O delay is shown; the members that leave
 * from now on are the next interval's. (Their threads are counted when
 * the line is made, with the groups': a child that joins from its exit
 * record after these reads is a process of the line, its thread too.) */
void pt_interval_end_reads_done(struct pt_interval *iv, int64_t fds, bool blkio_shown);
/* The interval lasted seconds: the seconds the counters' deltas span now,
 * since they were last reported (an interval short of descriptors keeps
 * its base, pt_interval_end). */
double pt_interval_lasted(struct pt_interval *iv, double seconds);
/* The interval's line is made: what it saw starts again from nothing. */
void pt_interval_end(struct pt_interval *iv);
/* NULL when the invariants above hold, else the first one broken. */
const char *pt_interval_check(const struct pt_interval *iv);

#endif
