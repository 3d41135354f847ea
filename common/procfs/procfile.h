/* procfile: a /proc file read through a kept descriptor, and parsed.
 *
 * A procfs file is regenerated on every read at offset 0, so the cheapest
 * way to sample it again is to keep its fd and pread() it (one syscall,
 * no open/close). Single-record files fit in one read; multi-record files
 * (children lists) come at most ~4 KiB per read, so we always read to EOF.
 * A kept fd of a process that has been reaped returns ESRCH, never the data
 * of a process that reused the pid; the exception is task/TID/children,
 * which then reads as empty (0 bytes).
 *
 * What is read is parsed by hand-written scanners. /proc content is untrusted: comm can hold spaces, ')', newlines,
 * commas, quotes and invalid UTF-8, and a file can be truncated or empty when its process dies mid-read. Every parser
 * takes (buf, len) — buf need not be NUL-terminated — never reads past len, and returns 0 on success or -1 when a
 * required field is missing, malformed or out of range. Parsers do not allocate and do not use sscanf. Memory values
 * are returned in bytes (kB fields multiplied by 1024); statm stays in pages (the caller knows the page size); CPU
 * times stay in clock ticks.
 *
 * The values proctree adds up are clamped to the maxima of procmax.h.
 * Here the files of fixed layout; the "Key: value" files are kvparse.h's
 * and the lists of pids pidparse.h's, both included here so that one
 * include gives every parser.
 */
#ifndef PROCTREE_PROCFILE_H
#define PROCTREE_PROCFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"
#include "procfs/kvparse.h"
#include "procfs/pidparse.h"
#include "procfs/procmax.h"

/* Read the whole file behind fd from offset 0 into buf (grown as needed,
 * capped at 16 MiB). Returns the length read (0 for an empty file) or
 * -errno: -ESRCH / -ENOENT when the process is gone. */
ssize_t pt_procfs_pread_all(int fd, struct pt_buf *buf);

/* The same for a single-record file (stat, statm, io, status, smaps_rollup,
 * meminfo), in one pread when the buffer is large enough: the hot path. */
ssize_t pt_procfs_pread_record(int fd, struct pt_buf *buf);

/* fd (an open's result: a -errno is passed on, buf emptied) read with
 * reader (pt_procfs_pread_all, or pt_procfs_pread_record for a single-record file: one
 * syscall fewer), then closed: the one helper for every file read once
 * and not kept. Returns what read returns. */
ssize_t pt_procfs_read_and_close(int fd, struct pt_buf *buf, ssize_t (*reader)(int fd, struct pt_buf *buf));

/* Open path under dirfd, read it whole into buf and close it: a file read
 * once (a cmdline, a children list of a thread, mountinfo). Returns its
 * length or -errno (buf then empty). */
ssize_t pt_procfs_read_file_at(int dirfd, const char *path, struct pt_buf *buf);

/* Every file below a proc root is opened confined to it: never above
 * dirfd, through no magic link (fd/N, exe, root, cwd), and, once
 * pt_procfs_confine_mounts was called, across no mount (openat2's
 * RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_XDEV). So a proc
 * root the caller chose, read with capabilities, yields only its own
 * files: a symbolic link or a file mounted over one of them in a
 * namespace of the caller's making leads nowhere. Where the kernel lacks
 * openat2 (before 5.6), only a last symbolic link is refused, and
 * pt_procfs_open_is_confined says so. AT_FDCWD opens an absolute path as it is
 * (proctree's own /proc/self files). Returns fd or -1 with errno. */
int pt_procfs_openat_confined(int dirfd, const char *path, int flags);
bool pt_procfs_open_is_confined(void);
void pt_procfs_confine_mounts(void);

/* pt_procfs_openat_confined(dirfd, name, O_RDONLY|O_CLOEXEC). Returns fd or
 * -errno. */
int pt_procfs_open_at(int dirfd, const char *name);

/* The same for a sysctl below the proc root ("sys/kernel/..."), which may
 * cross a mount: a container's /proc/sys is a read-only mount of its own,
 * and a sysctl holds a number of the host's, nothing of a process. */
int pt_procfs_open_sysctl_at(int dirfd, const char *name);

/* True when err (a -errno result) means the process no longer exists. */
int pt_procfs_errno_is_gone(int err);

/* ---- the parsers ---- */

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
     * pt_procfs_parse_stat_with_blkio, has_blkio; 0 otherwise) */
    uint64_t blkio_ticks;
    bool has_blkio;
};
int pt_procfs_parse_stat(const char *buf, size_t len, struct pt_stat *out);
/* The same, and on to field 42: has_blkio false when the line ends
 * before it (an old kernel, a line cut short) or it is malformed; the
 * fields before it are taken either way. */
int pt_procfs_parse_stat_with_blkio(const char *buf, size_t len, struct pt_stat *out);

/* What stat's state letter says of a task, as the tree's process states
 * count it. The letters are fs/proc/array.c's task_state_array: R
 * running or runnable; S sleeping and I idle (a kernel thread's sleep);
 * D uninterruptible sleep, blocked in the kernel; T stopped by a signal,
 * t by a tracer; Z zombie; X dead and P parked (a kernel thread), and
 * the x, K and W of kernels before 4.14, are none of the counted ones. */
enum pt_task_state { PT_TS_RUNNING, PT_TS_SLEEPING, PT_TS_BLOCKED, PT_TS_STOPPED, PT_TS_ZOMBIE, PT_TS_OTHER };
enum pt_task_state pt_procfs_task_state_of(char letter);

/* Z or X: the task has exited (a zombie, or one being reaped); its memory
 * map is gone, and so are the files bound to it. */
bool pt_procfs_task_has_exited(char letter);

/* A kernel thread (PF_KTHREAD in stat's flags, include/linux/sched.h): it
 * has no user memory and no command line. */
#define PT_PF_KTHREAD 0x00200000u
/* A task in do_exit() (PF_EXITING): set before its memory map is dropped,
 * never cleared. */
#define PT_PF_EXITING 0x00000004u

/* /proc/PID/statm, in pages: size resident shared (the first three). */
struct pt_statm {
    uint64_t size, resident, shared;
};
int pt_procfs_parse_statm(const char *buf, size_t len, struct pt_statm *out);

/* /proc/PID/schedstat (the task's own: the main thread's in a process
 * directory): "run_ns wait_ns timeslices". Kept: the time it was
 * runnable but waiting for a CPU (wait_ns, sched_info.run_delay) and the
 * times it was switched in. */
struct pt_schedstat {
    uint64_t run_delay_ns;
    uint64_t timeslices;
};
int pt_procfs_parse_schedstat(const char *buf, size_t len, struct pt_schedstat *out);

/* /proc/PID/limits: the soft limit of "Max open files" (RLIMIT_NOFILE, the
 * one open(2) fails at with EMFILE). 0 with *soft set; 1, *soft untouched,
 * when it is "unlimited"; -1 when the line is missing, malformed or cut
 * before its units. */
int pt_procfs_parse_nofile_limit(const char *buf, size_t len, uint64_t *soft);

#endif
