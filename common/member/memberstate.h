/* memberstate: one member's state (struct pt_member: its identity, kept
 * descriptors, last counters and what its reads decided) and the result
 * of a read, shared by the files that read it: memberfiles.c (its
 * descriptors and identity), member.c (its reads), memberthreads.c (its threads' counts and usage). */
#ifndef PROCTREE_MEMBERSTATE_H
#define PROCTREE_MEMBERSTATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/fdbudget.h"
#include "accounting/ledger.h"
#include "bpf/taskfold.h"
#include "bpf/taskiter.h"
#include "bpf/udpcount.h"
#include "procfs/procfile.h"
#include "report/quantities.h"
#include "member/threads.h"

/* want, got and tc_known hold one bit per enum pt_tcount */
_Static_assert(PT_TC_COUNT < sizeof(unsigned) * CHAR_BIT, "enum pt_tcount outgrows its unsigned masks (and PT_TC_ALL)");

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
    PT_MF_CMDLINE,   /* --by title: its title, once an interval */
    PT_MF_COUNT
};

/* How a member's fd/ directory tells its number of entries. */
enum pt_fd_dir_count { PT_FD_DIR_UNKNOWN, PT_FD_DIR_SIZED, PT_FD_DIR_LISTED };

struct pt_member {
    pid_t pid;
    pid_t ppid; /* as of the last stat read */
    char state; /* stat's state letter, as of the last stat read */
    uint64_t starttime;
    char comm[PT_COMM_MAX]; /* as of the last stat read */
    /* --by title: the group its title gives (titlegroup.h) as of its last
     * read of cmdline, kept while that shows none (a zombie's); and the
     * hash of the title it was made of (pt_titlegroup_follow). --by
     * cgroup: the name of the group it joined (membership.c's
     * cgroup_name), fixed */
    char title_group[PT_GROUP_NAME_MAX];
    uint64_t title_hash;
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
    bool io_vouched;                   /* its io was read by its file since it was (re)opened: the
                                          permissions allow it, and a snapshot may give it */
    bool fds_vouched;                  /* its fd/ was counted by its size since it was (re)opened: the
                                          permissions allow it, and a snapshot may count them */
    bool statm_vouches;                /* fd[PT_MF_STATM] is kept on procfs: the identity check */
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
    uint32_t smaps_period, smaps_wait; /* --pss-budget: read every period-th sample */
    uint64_t smaps_gen;                /* its list's memory_gen when smaps was read */
    struct pt_statm statm;             /* the last poll's, when has_statm */
    bool has_statm;
    /* its open descriptors as the last poll's snapshot counted them (a
     * member whose count was asked for, pt_taskiter_count_fds), -1 where
     * it did not: set at each poll (pt_membersource_statm), for the walk
     * of its sockets that follows it (targetnet.c) */
    int64_t polled_fds;
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
    /* The task iterator that follows it (its target's source), NULL when
     * it is read from its files alone; the CPU split its snapshots
     * showed last (taskfold.h). */
    struct pt_taskiter *taskiter;
    struct pt_cputime cpu_split;
    /* Its UDP counters' bytes its target took so far (udpbytes.h): 0
     * when born in the tree, its entry's then when it joined with its
     * past left out. */
    struct pt_udpcount_bytes udp;
};

/* Result of a read: the data, the process is gone, this read failed
 * (truncated, unparseable, permission) while the process lives on, or
 * this process (or the system) ran out of descriptors (EMFILE, ENFILE):
 * then what the read feeds is unknown, never to be taken as zero. */
enum pt_read { PT_READ_OK, PT_READ_GONE, PT_READ_FAILED, PT_READ_NO_FDS };

#endif
