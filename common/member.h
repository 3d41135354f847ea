/* member: one process of a target's tree, and the reads it takes.
 *
 * A member is an identity, (pid, starttime), with the descriptors of the
 * /proc files proctree samples kept open while the descriptor budget
 * allows (procfile.h, fdbudget.h), and the last cumulative counters read
 * from them. The last values matter after the process is gone: they are
 * what the tree loses if nobody in the tree absorbs the process's usage
 * when it is reaped (ledger.h).
 *
 * A kept descriptor can never show another process: once its process is
 * reaped it reads ESRCH, even if the pid is reused. A file read without a
 * kept descriptor is opened by path, so each such read is followed by a
 * read of the member's stat (through its kept descriptor, or by path with
 * the starttime compared): a process that is alive after the open was
 * alive, with the same pid, at the open. */
#ifndef PROCTREE_MEMBER_H
#define PROCTREE_MEMBER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fdbudget.h"
#include "ledger.h"
#include "procfile.h"
#include "procparse.h"
#include "quantities.h"
#include "threads.h"

/* Files another user's process keeps from us (ptrace access is needed). */
enum pt_denied { PT_DENIED_IO = 1, PT_DENIED_SMAPS = 2, PT_DENIED_FDS = 4 };

/* The files a member reads, each opened on first use. */
enum pt_member_file {
    PT_MF_STAT,
    PT_MF_STATM,
    PT_MF_IO,
    PT_MF_CHILDREN, /* task/<pid>/children: the main thread's children */
    PT_MF_STATUS,
    PT_MF_SMAPS,
    PT_MF_FD_DIR,
    PT_MF_SCHEDSTAT, /* the run-queue delay; whether status can have changed (read_tcounts) */
    PT_MF_LIMITS,    /* read by path once a minute, never kept */
    PT_MF_COUNT
};

/* How a member's fd/ directory tells its number of entries. */
enum pt_fd_dir_count { PT_FD_DIR_UNKNOWN, PT_FD_DIR_SIZED, PT_FD_DIR_LISTED };

struct pt_member {
    pid_t pid;
    pid_t ppid; /* as of the last stat read */
    char state; /* stat's state letter, as of the last stat read */
    uint64_t starttime;
    char comm[PT_COMM_MAX];      /* as of the last stat read */
    char path[24];               /* "<pid>/" under the proc root, built once */
    int fd[PT_MF_COUNT];         /* kept descriptors, -1 when not kept */
    struct pt_fd_budget *budget; /* shared by the collector's members */
    struct pt_threads threads;   /* when it has several: see threads.h */
    /* For --by thread: its main thread's usage (kept whatever the thread
     * count, so a change of it loses nothing), and whether its threads
     * were sampled. */
    struct pt_thread_usage main_usage;
    bool usage_sampled;
    bool had_threads;       /* more than one, at a read or by an exit record: its
                               stat's CPU is no longer its main thread's */
    struct pt_account acct; /* its counters and its part of the ledger (ledger.h) */
    /* With exit records: the own usage of its threads that have exited,
     * by counter but with CPU in microseconds, not ticks (exitrecords.h);
     * all of its own usage once it has exited when recorded_whole (born
     * in the tree while records flowed, none lost since). */
    int64_t recorded[PT_CTR_COUNT];
    int64_t recorded_run_us; /* their exact run time; -1 when a record lacked it */
    bool recorded_whole;
    int64_t life_us;                   /* from its main thread's record: start to exit; 0 before */
    double started_at;                 /* its fork event's time (pt_now's clock); 0: not known */
    double exited_at;                  /* its exit event's time, same clock; 0 before */
    double read_at;                    /* when its counters were last read (pt_now's clock) */
    unsigned denied;                   /* enum pt_denied bits: not opened again */
    enum pt_fd_dir_count fd_dir_sized; /* st_size, or a readdir (count_dir_entries) */
    int64_t num_threads;
    /* Its per-thread counts (enum pt_tcount): summed over its live threads
     * at the last read of each (tc_known bits), and those of its threads
     * whose exit records came since, credited at the next read. */
    int64_t tc[PT_TC_COUNT];
    int64_t tc_exited[PT_TC_COUNT];
    unsigned tc_known;
    uint64_t timeslices; /* schedstat's, when status was last read (has_timeslices) */
    bool has_timeslices;
    uint64_t blkio_ticks; /* stat's, when its last read took it (has_blkio) */
    bool has_blkio;
    struct pt_smaps_rollup smaps; /* last read */
    bool has_smaps;
    uint32_t smaps_period, smaps_wait; /* cost guard: read every period-th interval */
    struct pt_statm statm;             /* the last poll's, when has_statm */
    struct pt_statm statm_at_smaps;    /* statm when smaps was last tried */
    bool has_statm;
    uint32_t smaps_carried; /* samples in a row whose smaps was carried, memory unchanged */
    /* Its soft limit of open files (RLIMIT_NOFILE), a number when
     * has_fd_limit (not "unlimited", not unreadable); read when due. */
    uint64_t fd_limit;
    bool has_fd_limit;
    bool fd_limit_due;       /* joined, exec'd or new credentials since the last read */
    double fd_limit_read_at; /* the collector's clock */
    bool born;               /* joined as a descendant born in the tree, not as a new root */
    double since;            /* pt_now() at a baseline join, 0 when born: its forks
                                from then on are the tree's (fork events) */
    bool zombie;             /* exited, not yet reaped: its counters are final */
    bool exit_counted;       /* its exit was counted from the process events before it joined */
    bool kernel_thread;      /* PF_KTHREAD: no user memory, no command line */
    bool children_settled;   /* see settle_children() in membership.c */
    bool gone;               /* reaped; dropped at the next compaction */
    bool baseline_walk;      /* joined in this discovery pass as part of a new root's tree */
};

/* Result of a read: the data, the process is gone, this read failed
 * (truncated, unparseable, permission) while the process lives on, or
 * this process (or the system) ran out of descriptors (EMFILE, ENFILE):
 * then what the read feeds is unknown, never to be taken as zero. */
enum pt_read { PT_READ_OK, PT_READ_GONE, PT_READ_FAILED, PT_READ_NO_FDS };

/* Start following pid: read its stat and io once. Fails with
 * PT_READ_GONE when the process does not exist, or when expected_starttime
 * is non-zero and differs (the pid was reused). Descriptors are kept
 * within budget. */
enum pt_read pt_member_open(struct pt_member *m, int proc_root_fd, struct pt_fd_budget *budget, pid_t pid,
                            uint64_t expected_starttime, struct pt_buf *buf);
/* Close the kept descriptors (giving them back to the budget). */
void pt_member_close(struct pt_member *m);

/* Its program (exec) or its credentials changed: the files whose access
 * is checked at their open (smaps_rollup, fd/) or that may now refuse
 * (io) are opened again, under the permissions it has now, and its
 * memory sample is no longer its own. Also done by the reads themselves
 * when they see it: a new name at a stat read, a kept smaps_rollup that
 * stops answering while the process runs. */
void pt_member_reopen(struct pt_member *m);
/* Try the files the permissions kept from us again at their next read
 * (denied files are otherwise not tried again). */
void pt_member_forget_denials(struct pt_member *m);

/* Refresh ctr/ppid/num_threads from stat and io, and with blkio the
 * stat's block-I/O delay (has_blkio). has_io turns false when io is
 * denied from now on. */
enum pt_read pt_member_read_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, bool blkio);

/* statm, in pages. */
enum pt_read pt_member_read_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, struct pt_statm *out);

/* smaps_rollup (opened on first use: it is the dear one). */
enum pt_read pt_member_read_smaps(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                  struct pt_smaps_rollup *out);

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

/* Thread tid's usage record, or NULL when the kept list does not hold it. */
struct pt_thread_usage *pt_member_thread_usage_of(struct pt_member *m, pid_t tid);

/* Its soft limit of open files (fd_limit, has_fd_limit), from limits when
 * due: never read, or not since an exec or a change of credentials
 * (pt_member_reopen), or PT_FD_LIMIT_PERIOD seconds before now (a
 * prlimit(1) from outside tells nobody). FAILED (unreadable, garbage)
 * leaves has_fd_limit false until the next read. */
#define PT_FD_LIMIT_PERIOD 60.0
enum pt_read pt_member_read_fd_limit(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, double now);

/* Number of open file descriptors. */
enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count);

/* Children of the member's threads: fn(pid, arg) per child pid. Reads the
 * main thread's kept children file, plus every other thread's file when
 * the process has several threads (a child forked by a worker thread is
 * listed only under that thread). Returns PT_READ_FAILED with
 * *no_children_files set when the kernel lacks CONFIG_PROC_CHILDREN. */
enum pt_read pt_member_read_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                     int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files);

/* Read <pid>/stat by path (no kept fd) into out. */
enum pt_read pt_read_stat_by_pid(int proc_root_fd, pid_t pid, struct pt_buf *buf, struct pt_stat *out);

#endif
