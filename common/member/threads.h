/* threads: the threads of a multi-threaded member, with their files kept.
 *
 * What only a thread's own files show: its context switches
 * (task/TID/status), its delays (task/TID/schedstat, task/TID/stat) and
 * the children it forked (task/TID/children; a child forked by a worker
 * thread is listed under that thread alone).
 * With a breakdown by thread name, a third: its name and own CPU time
 * (task/TID/stat). A
 * member with many threads would cost a walk of task/ and an open per
 * thread and file at every read, so the list of threads and their
 * descriptors are kept (within the descriptor budget) while they live.
 *
 * The list is walked again only when it may be wrong: the member's thread
 * count differs from it, or a kept file said its thread is gone. A thread
 * that ends and another that starts between two reads keep the count,
 * but the gone one's descriptor reads ESRCH, so the list is walked then.
 * A thread a read found gone is never matched again: the tid the walk
 * lists is another thread's (the pid space wrapped), with files and
 * usage of its own.
 *
 * A kept descriptor pins its thread; a file opened by path is vouched for
 * by the caller, which checks the member's identity after reading. */
#ifndef PROCTREE_THREADS_H
#define PROCTREE_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/fdbudget.h"
#include "procfs/procfile.h"

/* PT_TF_STAT is read only for a breakdown by thread name (--by thread)
 * and, while kernel.task_delayacct is 1, for the block-I/O delay;
 * PT_TF_SCHEDSTAT for the run-queue delay. */
enum pt_thread_file { PT_TF_STATUS, PT_TF_CHILDREN, PT_TF_STAT, PT_TF_SCHEDSTAT, PT_TF_COUNT };

/* A thread's own usage for the breakdown by thread name: its name and
 * counters at this interval's end (now) and at the last (last). Once its
 * exit record has settled it (final), nothing more is credited for it: a
 * zombie's stat read later shows its end again, truncated. */
struct pt_thread_usage {
    char comm[PT_COMM_MAX]; /* task/TID/stat's, raw bytes */
    int64_t utime, stime;   /* clock ticks, its own (no children) */
    int64_t voluntary, involuntary;
    bool cpu_now, ctx_now; /* read at this interval's end */
    int64_t last_utime, last_stime, last_voluntary, last_involuntary;
    bool cpu_last, ctx_last; /* the last_* hold a read */
    bool final;              /* its exit record settled it */
};

struct pt_thread {
    pid_t tid;
    int fd[PT_TF_COUNT]; /* kept, or -1 */
    bool gone;           /* a read found it gone: whatever has its tid now is another */
    uint64_t starttime;  /* its stat's, once read (0 before): with tid, its identity */
    struct pt_thread_usage usage;
};

/* Owns the arrays and the descriptors. Zero-initialised = empty, stale.
 * A walk that finds threads gone keeps the usage credited from their
 * reads (ended, no descriptor) until the exit records that follow it are
 * in (pt_threads_forget_ended): a thread's record is sent before it
 * leaves task/, yet may be drained after the walk, and settles it from
 * its last read (exits.c). */
struct pt_threads {
    struct pt_thread *list; /* ascending tid */
    uint32_t count;
    bool fresh;              /* walked, and no file has said a thread is gone since */
    struct pt_thread *ended; /* gone at the last walks, not settled yet; in no order */
    uint32_t n_ended;
};

/* Walk <member_path>task/ again when the list may be wrong (see above),
 * keeping the descriptors of the threads that remain. Returns 0 or
 * -errno (the member is gone: -ENOENT/-ESRCH; no descriptors: -EMFILE). */
int pt_threads_refresh(struct pt_threads *ts, int proc_root_fd, const char *member_path, int64_t num_threads,
                       struct pt_fd_budget *budget);

/* The usage of thread tid: an ended one's not settled yet first (exit
 * records come in the order threads exit, so a record is the ended
 * one's where a new thread has its tid since), else the live one's,
 * else an ended one's; NULL when neither list holds it. */
struct pt_thread_usage *pt_threads_usage_of(struct pt_threads *ts, pid_t tid);
/* The exit records that follow the walks are in: the ended threads'
 * usage goes. */
void pt_threads_forget_ended(struct pt_threads *ts);

/* Read file f of thread i into buf (to its end). Returns its length; 0
 * when the thread is gone (the list is then walked at the next refresh);
 * -EMFILE/-ENFILE when no descriptor could be had. */
ssize_t pt_threads_read(struct pt_threads *ts, uint32_t i, enum pt_thread_file f, int proc_root_fd,
                        const char *member_path, struct pt_fd_budget *budget, struct pt_buf *buf);

/* Thread i's stat, just read, showed starttime: true when no earlier
 * read showed another. Else the tid is another thread's (read by path,
 * no descriptor kept to say ESRCH, after the pid space wrapped): what was
 * read is not the thread's, which is then gone, as pt_threads_read finds
 * one. */
bool pt_threads_vouch(struct pt_threads *ts, uint32_t i, uint64_t starttime);

/* Close every kept descriptor (back to the budget), keeping the lists. */
void pt_threads_close(struct pt_threads *ts, struct pt_fd_budget *budget);
/* Close every kept descriptor (back to the budget) and free the lists. */
void pt_threads_free(struct pt_threads *ts, struct pt_fd_budget *budget);

#endif
