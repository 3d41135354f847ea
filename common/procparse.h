/* procparse: hand-written scanners for the /proc files proctree reads.
 *
 * /proc content is untrusted: comm can hold spaces, ')', newlines, commas,
 * quotes and invalid UTF-8, and a file can be truncated or empty when its
 * process dies mid-read. Every parser takes (buf, len) — buf need not be
 * NUL-terminated — never reads past len, and returns 0 on success or -1
 * when a required field is missing, malformed or out of range. Parsers do
 * not allocate and do not use sscanf. Memory values are returned in bytes
 * (kB fields multiplied by 1024); statm stays in pages (the caller knows
 * the page size); CPU times stay in clock ticks.
 *
 * The values proctree adds up are clamped to the maxima below: a number
 * that fits the syntax but no real process can reach (a fake /proc, a
 * hostile FUSE mount given as proc root, a kernel bug) is taken as the
 * maximum of its kind, so that every value fits int64 with room to spare
 * and the saturating sums (saturate.h) stay meaningful. */
#ifndef PROCTREE_PROCPARSE_H
#define PROCTREE_PROCPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bounds.h"

/* Cumulative counts: clock ticks, page faults, I/O bytes and syscalls,
 * context switches. 2^62 ticks at 1000 Hz is 146 million years; 2^62
 * bytes is 4 EiB, 14,000 years at 10 GB/s. */
#define PT_MAX_COUNT (UINT64_C(1) << 62)
/* Memory in bytes (smaps_rollup, meminfo): 1 EiB, 8 times the largest
 * address space Linux supports (2^57 bytes with 5-level page tables). */
#define PT_MAX_BYTES (UINT64_C(1) << 60)
/* Memory in pages (statm): 2^48 pages, the same 2^60 bytes with 4 KiB pages
 * and above any real value with larger ones. */
#define PT_MAX_PAGES (UINT64_C(1) << 48)
/* Threads of one process: no more than there can be pids (PID_MAX_LIMIT). */
#define PT_MAX_THREADS (INT64_C(1) << 22)

/* A task's comm is <= 15 bytes, but stat shows a kworker as its name plus
 * its workqueue, up to 63 bytes; fixtures may write anything. */
#define PT_COMM_MAX 64

/* /proc/PID/stat. comm is everything between the first '(' and the LAST ')'
 * (so ')' and newlines inside comm are kept), truncated to fit, raw bytes. */
struct pt_stat {
    pid_t pid;
    char comm[PT_COMM_MAX];
    char state;
    pid_t ppid;
    uint64_t flags; /* PF_* of the task: PT_PF_KTHREAD */
    uint64_t minflt, cminflt, majflt, cmajflt;
    uint64_t utime, stime, cutime, cstime; /* clock ticks */
    int64_t num_threads;
    uint64_t starttime; /* clock ticks since boot: with pid, the identity */
    uint64_t vsize;     /* bytes */
    int64_t rss_pages;
    /* field 42, delayacct_blkio_ticks: clock ticks the task waited for
     * block I/O, counted while kernel.task_delayacct is 1 (only read by
     * pt_parse_stat_with_blkio, has_blkio; 0 otherwise) */
    uint64_t blkio_ticks;
    bool has_blkio;
};
int pt_parse_stat(const char *buf, size_t len, struct pt_stat *out);
/* The same, and on to field 42: has_blkio false when the line ends
 * before it (an old kernel, a line cut short) or it is malformed; the
 * fields before it are taken either way. */
int pt_parse_stat_with_blkio(const char *buf, size_t len, struct pt_stat *out);

/* What stat's state letter says of a task, as the tree's process states
 * count it. The letters are fs/proc/array.c's task_state_array: R
 * running or runnable; S sleeping and I idle (a kernel thread's sleep);
 * D uninterruptible sleep, blocked in the kernel; T stopped by a signal,
 * t by a tracer; Z zombie; X dead and P parked (a kernel thread), and
 * the x, K and W of kernels before 4.14, are none of the counted ones. */
enum pt_task_state { PT_TS_RUNNING, PT_TS_SLEEPING, PT_TS_BLOCKED, PT_TS_STOPPED, PT_TS_ZOMBIE, PT_TS_OTHER };
enum pt_task_state pt_task_state_of(char letter);

/* A kernel thread (PF_KTHREAD in stat's flags, include/linux/sched.h): it
 * has no user memory and no command line. */
#define PT_PF_KTHREAD 0x00200000u

/* /proc/PID/statm, in pages: size resident shared (the first three). */
struct pt_statm {
    uint64_t size, resident, shared;
};
int pt_parse_statm(const char *buf, size_t len, struct pt_statm *out);

/* /proc/PID/io. All seven fields are required. */
struct pt_io {
    uint64_t rchar, wchar, syscr, syscw;
    uint64_t read_bytes, write_bytes, cancelled_write_bytes;
};
int pt_parse_io(const char *buf, size_t len, struct pt_io *out);

/* /proc/PID/status and /proc/PID/task/TID/status: the lines proctree
 * uses. All are required. uid: real and effective, from "Uid:". */
struct pt_status {
    uint64_t voluntary_ctxt_switches, nonvoluntary_ctxt_switches;
    uid_t real_uid, effective_uid;
};
int pt_parse_status(const char *buf, size_t len, struct pt_status *out);

/* /proc/PID/smaps_rollup, in bytes. Rss and Pss are required; the others
 * default to 0 when absent (older kernels lack some lines). */
struct pt_smaps_rollup {
    uint64_t rss, pss;
    uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
    uint64_t swap;
};
int pt_parse_smaps_rollup(const char *buf, size_t len, struct pt_smaps_rollup *out);

/* /proc/meminfo, in bytes. MemTotal and MemFree are required; has_available
 * says whether MemAvailable was present (kernel >= 3.14). */
struct pt_meminfo {
    uint64_t mem_total, mem_free, mem_available, buffers, cached;
    uint64_t anon_pages, swap_total, swap_free;
    bool has_available;
};
int pt_parse_meminfo(const char *buf, size_t len, struct pt_meminfo *out);

/* /proc/PID/schedstat (the task's own: the main thread's in a process
 * directory): "run_ns wait_ns timeslices". Kept: the time it was
 * runnable but waiting for a CPU (wait_ns, sched_info.run_delay) and the
 * times it was switched in. */
struct pt_schedstat {
    uint64_t run_delay_ns;
    uint64_t timeslices;
};
int pt_parse_schedstat(const char *buf, size_t len, struct pt_schedstat *out);

/* /proc/PID/limits: the soft limit of "Max open files" (RLIMIT_NOFILE, the
 * one open(2) fails at with EMFILE). 0 with *soft set; 1, *soft untouched,
 * when it is "unlimited"; -1 when the line is missing, malformed or cut
 * before its units. */
int pt_parse_nofile_limit(const char *buf, size_t len, uint64_t *soft);

/* /proc/PID/task/TID/children: space-separated pids. Calls fn(pid, arg) for
 * each; stops and returns -1 on a malformed token or when fn returns
 * non-zero; returns the number of pids otherwise. An empty file is 0. */
int pt_parse_children(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg);

/* A cgroup's cgroup.procs: one pid per line, as the reader's pid namespace
 * names them; cgroup v2 writes 0 for a process outside it (v1 leaves it
 * out), which is passed on as 0. Otherwise as pt_parse_children. */
int pt_parse_cgroup_procs(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg);

/* A pid file, read as systemd's PIDFile= reads one: the first line holds
 * a decimal pid (1 .. PT_PID_LIMIT), with spaces or tabs around it;
 * whatever follows the first newline is ignored (PostgreSQL's
 * postmaster.pid goes on with its data directory, port, ...). buf holds
 * the file's first len bytes, at most PT_PIDFILE_MAX: a first line that
 * runs to the end of PT_PIDFILE_MAX bytes may have been cut, so it is
 * refused; a shorter buffer is the whole file and needs no newline. */
#define PT_PIDFILE_MAX 4096
int pt_parse_pidfile(const char *buf, size_t len, pid_t *out);

/* The NSpid line of /proc/PID/status: the process's pid in each pid
 * namespace from the proc mount's down to its own, outermost first (one
 * pid where it runs in the proc mount's namespace). Fills out with at most
 * max pids and returns how many; 0 when there is no such line (kernels
 * before 4.1), -1 when it is malformed, cut short or longer than max. */
#define PT_NSPID_MAX 33 /* the kernel nests at most 32 pid namespaces below the host's */
int pt_parse_nspid(const char *buf, size_t len, pid_t *out, size_t max);

#endif
