/* exitrecords: the kernel's taskstats exit records (generic netlink
 * family "TASKSTATS").
 *
 * Registered for every possible CPU, a listener receives one record per
 * task (thread) that exits on the host, sent by the exiting task itself
 * before it releases its memory: its own CPU time, context switches, I/O,
 * faults, peak RSS, exit code, pid, thread-group id and parent. /proc
 * forgets a thread's context switches when it exits and a short-lived
 * process before a poll sees it; the record keeps both (exits.c uses
 * them). A multithreaded process's last thread also brings an AGGR_TGID
 * record, which carries only delay accounting and the run time
 * (cpu_run_virtual_total) of its threads summed as they exited, which is
 * the sum of their own records' run_us: it is not used.
 *
 * Registering needs CAP_NET_ADMIN (the kernel checks it on the request
 * and answers EPERM): without it pt_exitrecords_open fails and proctree
 * works as without records; so it does on a kernel before 6.0, whose
 * records have no thread-group id (ac_tgid, taskstats version 13). Each
 * request is matched to its answer by its sequence number: the
 * controller's acknowledgement of the family lookup must not be taken for
 * the registration's. The socket is non-blocking and drained from the
 * thread that polls, so a burst costs reads, never a wait; when the kernel
 * had to drop records (the socket buffer overflowed) the drain says so. */
#ifndef PROCTREE_EXITRECORDS_H
#define PROCTREE_EXITRECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procfs/procfile.h"

/* One exited task, as proctree uses it. Its usage is the thread's own,
 * never its children's: the kernel folds a reaped child into its parent's
 * counters, and sends the child's own record. */
struct pt_exitrecord {
    pid_t pid;              /* the thread */
    pid_t tgid;             /* its process */
    pid_t ppid;             /* the process's parent at the exit (0: unknown) */
    char comm[PT_COMM_MAX]; /* the thread's name, raw bytes, NUL-terminated */
    uint32_t exitcode;      /* as wait(2) reports it: (code << 8) or the signal */
    int64_t nvcsw, nivcsw;  /* the thread's voluntary and involuntary switches */
    /* Nanoseconds it was runnable waiting for a CPU (cpu_delay_total, its
     * sched_info.run_delay, kept whether or not delay accounting is on) and
     * waiting for block I/O (blkio_delay_total, counted only for a task
     * forked while kernel.task_delayacct was 1: delayacct.h) */
    int64_t cpu_delay_ns, blkio_delay_ns;
    int64_t rss_peak_kb; /* peak resident memory of the process's address space */
    int64_t elapsed_us;  /* the thread's life, from its start to its exit */
    /* CPU in microseconds as the scheduler tick sampled it: /proc scales
     * the same samples to the exact run time, so the two differ by up to a
     * tick per stretch the thread ran */
    int64_t utime_us, stime_us;
    /* Its exact run time in microseconds (the scheduler's sum_exec_runtime,
     * taskstats' cpu_run_virtual_total, filled whether or not delay
     * accounting is on), which /proc splits by the samples' ratio; -1 when
     * the record lacks it (0 with samples: a kernel built without
     * CONFIG_TASK_DELAY_ACCT, or the kernel's wrap to 0) */
    int64_t run_us;
    int64_t minflt, majflt;
    int64_t rchar, wchar, syscr, syscw; /* bytes and calls, as /proc/PID/io names them */
    int64_t read_bytes, write_bytes, cancelled_write_bytes;
};

struct pt_exitrecords {
    int fd; /* -1: not listening */
    uint16_t family;
    struct pt_exitrecord *records; /* the last drain's, in the kernel's order */
    size_t n_records, cap_records;
    /* A record without ac_tgid came (a kernel before 6.0): its version
     * (0 when its stats block is too short to say). Records cannot be used. */
    bool too_old;
    uint16_t old_version;
};

/* Listen. Returns 0, or -errno: -EPERM without CAP_NET_ADMIN, -ENOENT
 * when the kernel has no TASKSTATS family, -ETIMEDOUT when it does not
 * answer, -EPROTONOSUPPORT when its records have no thread-group id (a
 * kernel before 6.0: too_old and old_version say so; the answer to a
 * request for this process's own stats tells, before any record). */
int pt_exitrecords_open(struct pt_exitrecords *x);
/* Stop listening (deregistering the CPUs) and free the array. */
void pt_exitrecords_close(struct pt_exitrecords *x);

/* Read every record that arrived into x->records (n_records), without
 * waiting. Returns false when records were lost since the last drain. The
 * array is kept for the next drain: steady state allocates nothing. A
 * record without ac_tgid sets too_old: then none can be used, and the
 * caller stops listening. */
bool pt_exitrecords_drain(struct pt_exitrecords *x);

/* Append the exit records of one datagram (a run of netlink messages of
 * family x->family) to x->records. Anything malformed (a truncated
 * message or attribute, a length that does not fit) is skipped, never
 * read past len; a stats block without ac_tgid (taskstats version < 13)
 * sets too_old and old_version. Exposed for the unit tests. */
void pt_exitrecords_parse(struct pt_exitrecords *x, const void *buf, size_t len);

#endif
