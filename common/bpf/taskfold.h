/* taskfold: what procfs shows of a thread group, made of the task
 * iterator's records (taskrec.h) with the kernel's own arithmetic. No I/O.
 *
 * Each number is the one the kernel's procfs code would print at the
 * iterator's moment, from the same fields (fs/proc/array.c, base.c,
 * kernel/sched/cputime.c):
 *   - stat, whole process: faults summed over the live threads plus the
 *     signal_struct's (its exited threads'); utime and stime the adjusted
 *     split of the thread group's CPU time (cputime_adjust, below) from
 *     the signal_struct's prev_cputime, in USER_HZ ticks (truncated, as
 *     nsec_to_clock_t does); cutime, cstime, num_threads, the leader's
 *     state letter, flags, comm, real parent, starttime and block-I/O
 *     delay;
 *   - io: the live threads' task_io_accounting plus the signal_struct's;
 *   - the per-thread counts (status's context switches, schedstat's run
 *     delay, stat's block-I/O delay) summed over the live threads, as
 *     memberthreads.c sums their files.
 *   - statm's size, resident and shared: total_vm, and each mm counter's
 *     shared count plus every CPU's part (percpu_counter_sum_positive),
 *     as task_statm sums them since Linux 6.16 (has_statm false when a
 *     CPU's part could not be read).
 * What the records
 * cannot give equal (a kernel worker's name with its workqueue, which
 * procfs appends) is not made here: a kernel thread is no member of a
 * matcher's target, and a --pid one's name only names the target.
 *
 * cputime_adjust keeps state: the kernel stores the split it shows in
 * prev_cputime, so that neither side goes backwards. pt_taskfold_cputime
 * starts from the prev_cputime the record read and from the member's own
 * last split (prev, updated), whichever is later, so its answers never go
 * backwards either and equal procfs's where procfs was read last. */
#ifndef PROCTREE_TASKFOLD_H
#define PROCTREE_TASKFOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/taskiter.h"
#include "bpf/taskrec.h"
#include "procfs/kvparse.h"
#include "procfs/procfile.h"
#include "report/quantities.h"

/* A split of CPU time in nanoseconds, as struct prev_cputime holds it. */
struct pt_cputime {
    uint64_t utime, stime;
};

/* The kernel's cputime_adjust: rtime (the group's exact run time) split
 * in the ratio of the tick-sampled utime and stime, never below prev,
 * which it updates; the split is returned. */
struct pt_cputime pt_taskfold_cputime(uint64_t utime, uint64_t stime, uint64_t rtime, struct pt_cputime *prev);

/* nsec_to_clock_t for ticks_per_second (USER_HZ) ticks a second. */
uint64_t pt_taskfold_ticks(uint64_t ns, long ticks_per_second);

/* stat's state letter of a task's __state and exit_state. */
char pt_taskfold_state_letter(uint32_t state, uint32_t exit_state);

struct pt_taskfold {
    struct pt_stat stat; /* with has_blkio */
    struct pt_io io;
    int64_t tc[PT_TC_COUNT]; /* summed over the live threads; delays in ns */
    uint64_t timeslices;     /* the leader's schedstat pcount */
    uint32_t tasks;          /* the records of the group */
    struct pt_statm statm;   /* size, resident, shared in pages, when has_statm */
    bool has_statm;
    int64_t fds; /* open descriptors as fd/'s size counts them; -1: left to the directory */
};

/* A poll's snapshot (PT_TR_MODE_STATM): thread group tgid's statm and
 * the starttime that names the process; *fds (fds may be NULL) its open
 * descriptors where the poll counted them (pt_taskiter_count_fds), else
 * -1. False when the snapshot holds no record of it (*starttime and *fds
 * then untold), or this kernel's statm is not what the record sums
 * (they are told). */
bool pt_taskfold_statm(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, struct pt_statm *out,
                       uint64_t *starttime, int64_t *fds);

/* An interval end's snapshot (PT_TR_MODE_FULL), or a poll's
 * (PT_TR_MODE_STATM) of a member listed with its descriptors counted
 * (pt_taskiter_count_fds): thread group tgid's open descriptors, as the
 * size of its fd/ directory counts them, and the starttime that names
 * the process. False when the snapshot holds no record of it or the
 * record left the count to the directory. */
bool pt_taskfold_fds(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, int64_t *count,
                     uint64_t *starttime);

/* Fold thread group tgid's records of the snapshot into out. prev: the
 * member's last CPU split, updated. False when the snapshot holds no
 * record of its group (the process was reaped, or is not followed) or
 * the group lost a thread while it was read. */
bool pt_taskfold_group(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, long page_size,
                       struct pt_cputime *prev, struct pt_taskfold *out);

#endif
