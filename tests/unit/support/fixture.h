/* fixture: a fake /proc tree in a temporary directory, for unit tests.
 *
 * proctree takes its proc root as a parameter, so every parser and the
 * accounting can run on files the test writes. Files are rewritten in
 * place (O_TRUNC on the same inode) so that descriptors proctree keeps
 * open see the new content, as they would on procfs. A vanished process
 * is emulated the way a reader can observe it: its files are truncated to
 * zero bytes, then its directory is removed. */
#ifndef PROCTREE_TEST_FIXTURE_H
#define PROCTREE_TEST_FIXTURE_H

#include <stdint.h>
#include <sys/types.h>

#include "procfs/procfile.h"

/* Create a fresh temp dir (mkdtemp under $TMPDIR or /tmp). Aborts on error.
 * The returned string is malloc'd. */
char *fx_root_new(void);
/* rm -rf the tree and free the string. */
void fx_root_free(char *root);

/* Write content to root/rel, creating parent directories; rewrite in place
 * when the file exists. len < 0 means strlen(content). Aborts on error. */
void fx_write(const char *root, const char *rel, const char *content, long len);

/* One fake process. Fields left 0 are written as 0. */
struct fx_proc {
    pid_t pid, ppid;
    const char *comm; /* raw bytes, may hold ')' '\n' ' ' etc.; NULL = "proc" */
    char state;       /* 0 = 'S' */
    uint64_t flags;   /* stat field 9: PT_PF_KTHREAD for a kernel thread */
    uint64_t starttime;
    uint64_t utime, stime, cutime, cstime;
    uint64_t minflt, cminflt, majflt, cmajflt;
    int64_t num_threads;                               /* 0 = 1 */
    uint64_t blkio_ticks;                              /* stat field 42 */
    uint64_t size_pages, resident_pages, shared_pages; /* statm */
    struct pt_io io;
    const char *children;                            /* content of task/PID/children, NULL = "" */
    uint64_t pss_kb, swap_kb, shared_kb, private_kb; /* smaps_rollup */
};

/* Write PID/stat, PID/statm, PID/io, PID/smaps_rollup and
 * PID/task/PID/children for p (rewriting in place when they exist). */
void fx_put_proc(const char *root, const struct fx_proc *p);

/* Write PID/task/TID/stat for the thread (its pid field is the TID). */
void fx_put_thread(const char *root, pid_t pid, const struct fx_proc *thread);

/* Emulate the process being reaped (see above). */
void fx_vanish(const char *root, pid_t pid);

/* Write root/meminfo with the given kB values (plus the usual other lines). */
void fx_put_meminfo(const char *root, uint64_t total_kb, uint64_t free_kb, uint64_t available_kb, uint64_t cached_kb,
                    uint64_t anon_kb, uint64_t swap_free_kb);

/* Write a cgroup v2 directory with every controller (rel: below root):
 * each quantity of cgstat.h in its v2 file, cgroup.procs empty. */
void fx_put_cgroup_v2(const char *root, const char *dir, unsigned user_usec, unsigned current, unsigned peak);

#endif
