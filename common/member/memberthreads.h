/* memberthreads: a member's per-thread counts (context switches, the
 * run-queue and block-I/O delays, which the kernel keeps per thread and
 * drops with it) and, for --by thread, each thread's usage. Apart from the
 * process's reads (member.c) because these walk task/ and keep a file set
 * per thread (threads.h): a cost only the targets that want them pay. */
#ifndef PROCTREE_MEMBERTHREADS_H
#define PROCTREE_MEMBERTHREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"
#include "member/memberstate.h"
#include "report/quantities.h"
#include "member/threads.h"

/* The per-thread counts of want (enum pt_tcount bits) summed over the
 * member's live threads (a thread's own counts vanish with it: the kernel
 * exposes no total) into now, those read into *got. One thread: its
 * schedstat, its status (only when schedstat says it ran since) and the
 * block-I/O delay of the stat pt_member_read_counters read last (with
 * blkio); several: each thread's schedstat, status and stat, as want
 * needs. ns_per_tick turns stat's clock ticks into nanoseconds. */
enum pt_read pt_member_read_tcounts(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                    int64_t ns_per_tick, int64_t now[PT_TC_COUNT], unsigned *got);

/* The usage of each of its threads (pt_member_thread_usage) at this
 * interval's end: name and own CPU from task/TID/stat (a member that never
 * had other threads: from its own stat, already read), context switches from the
 * statuses pt_member_read_tcounts read just before (when it did). */
enum pt_read pt_member_read_thread_usage(struct pt_member *m, int proc_root_fd, struct pt_buf *buf);
/* Its threads' usage records, n of them (the main thread's is main_usage). */
struct pt_thread_usage *pt_member_thread_usage(struct pt_member *m, uint32_t i, uint32_t *n);

/* Thread tid's usage record, or NULL when the kept lists (its live
 * threads, those ended and not settled) do not hold it. */
struct pt_thread_usage *pt_member_thread_usage_of(struct pt_member *m, pid_t tid);
/* The exit records that follow its last walks of task/ are in: its ended
 * threads' usage goes (threads.h). */
void pt_member_threads_settled(struct pt_member *m);
/* m has left: its threads' usage, for the exit records still to come, to
 * *main (its main thread's) and *threads (the others', their descriptors
 * closed, back to the budget), which own it from now on. */
void pt_member_hand_thread_usage(struct pt_member *m, struct pt_thread_usage *main, struct pt_threads *threads);

#endif
