/* taskrec: the record the task iterator writes for each task of a member,
 * shared by the BPF program (taskiter.bpf.c) and its reader (taskiter.c).
 *
 * Raw kernel fields only, in the kernel's units (nanoseconds, pages, the
 * state bits): the arithmetic procfs does on them (thread sums, the
 * adjusted CPU split, tick conversions, the state letter) is taskfold's,
 * in user space, where it can be tested and where 128-bit products are
 * at hand. One record per task, in the iterator's order (by pid, so a
 * thread group's tasks are not adjacent); a leader's record also carries
 * what its signal_struct holds for the whole group and its mm's sizes.
 *
 * The layout is fixed (all 64-bit words but the tail's 32-bit ones, no
 * padding), so that both compilers agree on it. */
#ifndef PROCTREE_TASKREC_H
#define PROCTREE_TASKREC_H

#ifdef __bpf__
typedef __u64 pt_rec_u64;
typedef __u32 pt_rec_u32;
#else
#include <stdint.h>
typedef uint64_t pt_rec_u64;
typedef uint32_t pt_rec_u32;
#endif

/* The most members the program's map holds: the iterator skips the
 * others, and the reader reads them from procfs. */
#define PT_TASKREC_MEMBERS_MAX 65536

/* A task's task_io_accounting, in its order. */
enum pt_taskrec_io {
    PT_TR_RCHAR,
    PT_TR_WCHAR,
    PT_TR_SYSCR,
    PT_TR_SYSCW,
    PT_TR_READ_BYTES,
    PT_TR_WRITE_BYTES,
    PT_TR_CANCELLED_WRITE_BYTES,
    PT_TR_IO_COUNT
};

/* What the leader's signal_struct holds for the group: what its exited
 * threads did (folded in at their exit) and what its reaped children did. */
struct pt_taskrec_group {
    pt_rec_u64 utime, stime, sum_sched_runtime; /* ns: exited threads' */
    pt_rec_u64 cutime, cstime;                  /* ns: reaped children's */
    pt_rec_u64 min_flt, maj_flt, cmin_flt, cmaj_flt;
    pt_rec_u64 nvcsw, nivcsw;
    pt_rec_u64 prev_utime, prev_stime; /* the adjusted split procfs showed last (prev_cputime) */
    pt_rec_u64 io[PT_TR_IO_COUNT];
    pt_rec_u64 total_vm;      /* pages; 0 without an mm (a zombie, a kernel thread) */
    pt_rec_u64 rss_shared[4]; /* mm->rss_stat[i].count: the shared part of each per-CPU counter */
    pt_rec_u64 nr_threads;    /* signal->nr_threads */
    pt_rec_u64 real_parent;   /* its real parent's tgid */
};

struct pt_taskrec {
    pt_rec_u64 utime, stime;     /* ns, this task's */
    pt_rec_u64 sum_exec_runtime; /* ns, se.sum_exec_runtime */
    pt_rec_u64 min_flt, maj_flt;
    pt_rec_u64 nvcsw, nivcsw;
    pt_rec_u64 run_delay, pcount; /* sched_info */
    pt_rec_u64 blkio_delay;       /* ns, delays->blkio_delay; 0 without delays */
    pt_rec_u64 start_boottime;    /* ns */
    pt_rec_u64 io[PT_TR_IO_COUNT];
    struct pt_taskrec_group group; /* a leader's only (leader set) */
    pt_rec_u32 pid, tgid;
    pt_rec_u32 state, exit_state; /* __state and exit_state's bits */
    pt_rec_u32 flags;             /* PF_* */
    pt_rec_u32 leader;            /* pid == tgid: group is filled */
    char comm[16];
};

#endif
