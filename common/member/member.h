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

#include "util/buf.h"
#include "util/fdbudget.h"
#include "member/memberfiles.h"
#include "member/memberstate.h"
#include "procfs/procfile.h"
#include "report/quantities.h"
#include "member/threads.h"

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

/* The same counters from a read made elsewhere (the task iterator's
 * snapshot, taskfold.h) of the same moment: taken as a read of the files
 * would take them (a new name opens the files again; io the permissions
 * denied stays out, and io is taken only once its file was read since the
 * member was (re)opened: io_vouched). GONE when st is another process's
 * (its starttime). */
enum pt_read pt_member_take_counters(struct pt_member *m, const struct pt_stat *st, const struct pt_io *io, bool blkio);

/* Its io file alone: what pt_member_read_counters reads after stat. */
enum pt_read pt_member_read_io(struct pt_member *m, int proc_root_fd, struct pt_buf *buf);

/* Have the task iterator follow the member (its snapshots then hold its
 * tasks) until pt_member_close; nothing when it is NULL or full. */
void pt_member_follow(struct pt_member *m, struct pt_taskiter *it);

/* statm, in pages. */
enum pt_read pt_member_read_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, struct pt_statm *out);

/* smaps_rollup (opened on first use: it is the dear one). */
enum pt_read pt_member_read_smaps(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                  struct pt_smaps_rollup *out);

/* Its soft limit of open files (fd_limit, has_fd_limit), from limits when
 * due: never read, or not since an exec or a change of credentials
 * (pt_member_reopen), or PT_FD_LIMIT_PERIOD seconds before now (a
 * prlimit(1) from outside tells nobody). FAILED (unreadable, garbage)
 * leaves has_fd_limit false until the next read. */
#define PT_FD_LIMIT_PERIOD 60.0
enum pt_read pt_member_read_fd_limit(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, double now);

/* Number of open file descriptors: the size of its fd/ (or its entries,
 * where the size is not the count); sets fds_vouched where it was the
 * size. */
enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count);

/* Its command line's first cap bytes (or fewer), in one read, into text
 * (*len of them; 0: empty, as a zombie's is). */
enum pt_read pt_member_read_cmdline(struct pt_member *m, int proc_root_fd, char *text, size_t cap, size_t *len);

/* Children of the member's threads: fn(pid, arg) per child pid. Reads the
 * main thread's kept children file, plus every other thread's file when
 * the process has several threads (a child forked by a worker thread is
 * listed only under that thread). Returns PT_READ_FAILED with
 * *no_children_files set when the kernel lacks CONFIG_PROC_CHILDREN. */
enum pt_read pt_member_read_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                     int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files);

/* Read <pid>/stat by path (no kept fd) into out. */
enum pt_read pt_member_read_stat_by_pid(int proc_root_fd, pid_t pid, struct pt_buf *buf, struct pt_stat *out);

#endif
