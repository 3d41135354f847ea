/* member: one process of a target's tree: its own reads (stat, io,
 * statm, smaps_rollup, fd/, its children files, its limits, its command
 * line), each through its files (memberfiles.h). */
#include "member/member.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "util/saturate.h"
#include "procfs/pidwalk.h"

enum pt_read pt_member_read_stat_by_pid(int proc_root_fd, pid_t pid, struct pt_buf *buf, struct pt_stat *out)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/stat", (int)pid);
    int fd = pt_procfs_open_at(proc_root_fd, path);
    if (fd < 0)
        return pt_member_read_error(fd);
    ssize_t n = pt_procfs_pread_record(fd, buf);
    close(fd);
    if (n < 0)
        return pt_member_read_error((int)n);
    return pt_procfs_parse_stat(buf->data, (size_t)n, out) == 0 ? PT_READ_OK : PT_READ_FAILED;
}

static void take_stat(struct pt_member *m, const struct pt_stat *st)
{
    m->ppid = st->ppid;
    m->state = st->state;
    memcpy(m->comm, st->comm, sizeof(m->comm));
    m->zombie = pt_procfs_task_has_exited(st->state);
    m->kernel_thread = st->flags & PT_PF_KTHREAD;
    m->num_threads = st->num_threads;
    m->had_threads |= st->num_threads > 1;
    /* each value is at most PT_MAX_COUNT, so the casts are exact */
    m->acct.own[PT_CTR_USER_TICKS] = (int64_t)st->utime;
    m->acct.own[PT_CTR_SYSTEM_TICKS] = (int64_t)st->stime;
    m->acct.own[PT_CTR_MINFLT] = (int64_t)st->minflt;
    m->acct.own[PT_CTR_MAJFLT] = (int64_t)st->majflt;
    m->acct.ctr[PT_CTR_USER_TICKS] = pt_sat_add((int64_t)st->utime, (int64_t)st->cutime);
    m->acct.ctr[PT_CTR_SYSTEM_TICKS] = pt_sat_add((int64_t)st->stime, (int64_t)st->cstime);
    m->acct.ctr[PT_CTR_MINFLT] = pt_sat_add((int64_t)st->minflt, (int64_t)st->cminflt);
    m->acct.ctr[PT_CTR_MAJFLT] = pt_sat_add((int64_t)st->majflt, (int64_t)st->cmajflt);
    m->acct.has_stat = true;
}

static void take_io(struct pt_member *m, const struct pt_io *io)
{
    m->acct.ctr[PT_CTR_RCHAR] = (int64_t)io->rchar;
    m->acct.ctr[PT_CTR_WCHAR] = (int64_t)io->wchar;
    m->acct.ctr[PT_CTR_STORAGE_READ] = (int64_t)io->read_bytes;
    m->acct.ctr[PT_CTR_STORAGE_WRITE] = (int64_t)io->write_bytes;
    m->acct.ctr[PT_CTR_CANCELLED_WRITE] = (int64_t)io->cancelled_write_bytes;
    m->acct.ctr[PT_CTR_SYSCR] = (int64_t)io->syscr;
    m->acct.ctr[PT_CTR_SYSCW] = (int64_t)io->syscw;
    for (int k = 0; k < PT_CTR_IO_END; k++)
        m->acct.own[k] = m->acct.ctr[k];
    m->acct.has_io = true;
}

/* io is optional: another user's process denies it at open (its mode is
 * 0400) or, since io checks ptrace access at every read, later: with
 * CAP_DAC_READ_SEARCH but not CAP_SYS_PTRACE the open succeeds and every
 * read fails, and a process that execs a setuid program starts failing.
 * Then it is noted as denied and its values are no longer the member's
 * (has_io false: the target decides what its last ones become); a read
 * that fails otherwise keeps the last values. */
static enum pt_read read_io(struct pt_member *m, int proc_root_fd, struct pt_buf *buf)
{
    m->acct.io_fresh = false;
    if (m->denied & PT_DENIED_IO)
        return PT_READ_OK;
    size_t len;
    int err;
    struct pt_io io;
    enum pt_read r = pt_member_read_file(m, proc_root_fd, PT_MF_IO, buf, &len, &err);
    r = pt_member_note_denied(m, proc_root_fd, err, PT_MF_IO, PT_DENIED_IO, r);
    if (m->denied & PT_DENIED_IO)
        m->acct.has_io = false;
    if (r == PT_READ_GONE || r == PT_READ_NO_FDS)
        return r;
    m->acct.io_fresh = r == PT_READ_OK && pt_kvparse_io(buf->data, len, &io) == 0;
    m->io_vouched = m->acct.io_fresh;
    if (m->acct.io_fresh)
        take_io(m, &io);
    return PT_READ_OK;
}

enum pt_read pt_member_read_io(struct pt_member *m, int proc_root_fd, struct pt_buf *buf)
{
    return read_io(m, proc_root_fd, buf);
}

/* stat, parsed. It is its own identity check: with expected_starttime
 * (0 for a process not yet known), a read by path needs no second one. */
static enum pt_read read_stat(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, uint64_t expected_starttime,
                              bool blkio, struct pt_stat *st)
{
    bool transient;
    int fd = pt_member_file_fd(m, proc_root_fd, PT_MF_STAT, &transient);
    if (fd < 0)
        return pt_member_read_error(fd);
    ssize_t n = pt_procfs_pread_record(fd, buf);
    if (transient)
        close(fd);
    if (n < 0)
        return pt_member_read_error((int)n);
    if (n == 0 || (blkio ? pt_procfs_parse_stat_with_blkio : pt_procfs_parse_stat)(buf->data, (size_t)n, st) != 0)
        return PT_READ_FAILED;
    if (expected_starttime && st->starttime != expected_starttime)
        return PT_READ_GONE; /* a kept fd cannot show this; a path or a fixture can */
    return PT_READ_OK;
}

/* A stat read of the member, taken: its counters, name and state. */
static void take_counters_stat(struct pt_member *m, const struct pt_stat *st)
{
    /* A new name is most often a new program (exec), which the process
     * events may not have told: its files are opened again. */
    bool renamed = m->acct.has_stat && strcmp(st->comm, m->comm) != 0;
    take_stat(m, st);
    m->blkio_ticks = st->blkio_ticks;
    m->has_blkio = st->has_blkio;
    if (renamed)
        pt_member_reopen(m);
}

enum pt_read pt_member_read_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, bool blkio)
{
    struct pt_stat st;
    enum pt_read r = read_stat(m, proc_root_fd, buf, m->starttime, blkio, &st);
    if (r == PT_READ_FAILED)
        r = pt_member_settle_failure(m, proc_root_fd);
    if (r != PT_READ_OK)
        return r;
    take_counters_stat(m, &st);
    return read_io(m, proc_root_fd, buf);
}

enum pt_read pt_member_take_counters(struct pt_member *m, const struct pt_stat *st, const struct pt_io *io, bool blkio)
{
    if (st->starttime != m->starttime)
        return PT_READ_GONE; /* its pid is another process's */
    struct pt_stat taken = *st;
    if (!blkio) {
        taken.blkio_ticks = 0;
        taken.has_blkio = false;
    }
    take_counters_stat(m, &taken);
    /* what read_io would take: io denied to us stays denied, and io not
     * read by its file since an exec waits for it (the files answer for
     * the permissions, the snapshot does not) */
    m->acct.io_fresh = false;
    if ((m->denied & PT_DENIED_IO) || !m->io_vouched)
        return PT_READ_OK;
    take_io(m, io);
    m->acct.io_fresh = true;
    return PT_READ_OK;
}

void pt_member_follow(struct pt_member *m, struct pt_taskiter *it)
{
    if (it && pt_taskiter_follow(it, m->pid) == 0)
        m->taskiter = it;
}

void pt_member_reopen(struct pt_member *m)
{
    pt_member_drop_file(m, PT_MF_SMAPS);
    pt_member_drop_file(m, PT_MF_IO);
    pt_member_drop_file(m, PT_MF_FD_DIR);
    m->fds_vouched = m->io_vouched = false; /* the files decide again what a new program lets us read */
    m->denied = 0;
    m->fd_limit_due = true;
    /* the old program's memory is not the new one's */
    m->has_smaps = false;
    m->smaps_period = 1;
    m->smaps_wait = 0;
}

void pt_member_forget_denials(struct pt_member *m)
{
    m->denied = 0;
}

enum pt_read pt_member_open(struct pt_member *m, int proc_root_fd, struct pt_fd_budget *budget, pid_t pid,
                            uint64_t expected_starttime, struct pt_buf *buf)
{
    memset(m, 0, sizeof(*m));
    m->pid = m->acct.pid = pid;
    for (int f = 0; f < PT_MF_COUNT; f++)
        m->fd[f] = -1;
    m->polled_fds = -1;
    m->budget = budget;
    if (budget)
        pt_fdbudget_join(budget); /* its seats (fdbudget.h), until pt_member_close */
    m->fd_limit_due = true;
    snprintf(m->path, sizeof(m->path), "%d/", (int)pid);

    struct pt_stat st;
    enum pt_read r = read_stat(m, proc_root_fd, buf, expected_starttime, false, &st);
    if (r == PT_READ_OK) {
        m->starttime = st.starttime;
        take_stat(m, &st); /* the stat just read is the first sample */
        r = read_io(m, proc_root_fd, buf);
    }
    if (r != PT_READ_OK)
        pt_member_close(m);
    return r;
}

void pt_member_close(struct pt_member *m)
{
    for (int f = 0; f < PT_MF_COUNT; f++)
        pt_member_drop_file(m, f);
    pt_threads_free(&m->threads, m->budget);
    if (m->taskiter)
        pt_taskiter_unfollow(m->taskiter, m->pid);
    m->taskiter = NULL;
    if (m->budget)
        pt_fdbudget_leave(m->budget);
    m->budget = NULL; /* closed again (a member gone, then freed): nothing left to give */
}

enum pt_read pt_member_read_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, struct pt_statm *out)
{
    size_t len;
    int err;
    enum pt_read r = pt_member_read_file(m, proc_root_fd, PT_MF_STATM, buf, &len, &err);
    if (r == PT_READ_OK && pt_procfs_parse_statm(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    if (r == PT_READ_FAILED)
        r = pt_member_settle_failure(m, proc_root_fd);
    return r;
}

enum pt_read pt_member_read_smaps(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                  struct pt_smaps_rollup *out)
{
    if (m->denied & PT_DENIED_SMAPS)
        return PT_READ_FAILED;
    size_t len;
    int err;
    bool kept = m->fd[PT_MF_SMAPS] >= 0;
    enum pt_read r = pt_member_read_file(m, proc_root_fd, PT_MF_SMAPS, buf, &len, &err);
    /* A kept smaps_rollup is bound to the memory map it was opened on:
     * once that is gone it reads ESRCH. A zombie's is (it has none now);
     * a process still running has exec'd a new program, whose files are
     * opened again, under the permissions it has now. */
    struct pt_stat st;
    if (kept && err == -ESRCH && pt_member_check_identity_stat(m, proc_root_fd, &st) == PT_READ_OK &&
        !pt_procfs_task_has_exited(st.state)) {
        pt_member_reopen(m);
        r = pt_member_read_file(m, proc_root_fd, PT_MF_SMAPS, buf, &len, &err);
    }
    r = pt_member_note_denied(m, proc_root_fd, err, PT_MF_SMAPS, PT_DENIED_SMAPS, r);
    if (r == PT_READ_OK && pt_kvparse_smaps_rollup(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    /* A zombie's smaps_rollup says ESRCH while the process still has to be
     * reaped: that is "no memory", not "gone"; stat decides liveness. */
    return r == PT_READ_OK || r == PT_READ_NO_FDS ? r : PT_READ_FAILED;
}

/* fd/ entries are descriptor numbers, so the pid walker counts them. */
static void count_entry(pid_t fd, void *count)
{
    (void)fd;
    ++*(int64_t *)count;
}

/* Since Linux 6.2 the size of a procfs fd directory is its number of
 * entries: one fstat instead of a readdir. Elsewhere (older kernels, a
 * fixture tree, where a directory's size means something else) count the
 * entries. Which it is does not change for a member: it is found out once. */
static enum pt_read count_dir_entries(struct pt_member *m, int dir_fd, int64_t *count)
{
    struct stat st;
    if (m->fd_dir_sized == PT_FD_DIR_UNKNOWN) {
        /* a size of 0 is no answer: a process may have no descriptors */
        struct statfs fs;
        if (fstatfs(dir_fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)
            m->fd_dir_sized = PT_FD_DIR_LISTED;
        else if (fstat(dir_fd, &st) == 0 && st.st_size > 0)
            m->fd_dir_sized = PT_FD_DIR_SIZED;
    }
    if (m->fd_dir_sized == PT_FD_DIR_SIZED && fstat(dir_fd, &st) == 0) {
        *count = st.st_size;
        return PT_READ_OK;
    }
    *count = 0;
    int r = pt_pidwalk_each(dir_fd, ".", count_entry, count);
    return r == 0 ? PT_READ_OK : pt_member_read_error(r);
}

enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count)
{
    if (m->denied & PT_DENIED_FDS)
        return PT_READ_FAILED;
    bool transient;
    int fd = pt_member_file_fd(m, proc_root_fd, PT_MF_FD_DIR, &transient);
    if (fd < 0)
        return pt_member_note_denied(m, proc_root_fd, fd, PT_MF_FD_DIR, PT_DENIED_FDS, pt_member_read_error(fd));
    enum pt_read r = count_dir_entries(m, fd, count);
    if (transient)
        r = pt_member_end_transient(m, proc_root_fd, fd, r);
    m->fds_vouched = r == PT_READ_OK && m->fd_dir_sized == PT_FD_DIR_SIZED;
    return r;
}

enum pt_read pt_member_read_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                     int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files)
{
    *no_children_files = false;
    bool transient;
    int fd = pt_member_file_fd(m, proc_root_fd, PT_MF_CHILDREN, &transient);
    if (fd < 0) {
        /* The process exists (its stat opened) but has no children
         * file: the kernel was built without CONFIG_PROC_CHILDREN. */
        if (fd != -ENOENT)
            return pt_member_read_error(fd);
        enum pt_read r = pt_member_settle_failure(m, proc_root_fd);
        *no_children_files = r == PT_READ_FAILED;
        return r;
    }
    ssize_t n = pt_procfs_pread_all(fd, buf);
    enum pt_read r = n < 0 ? pt_member_read_error((int)n) : PT_READ_OK;
    if (transient) {
        close(fd);
        /* vouch for the list before anyone joins the pids in it */
        if (r == PT_READ_OK)
            r = pt_member_check_identity(m, proc_root_fd);
    }
    if (r != PT_READ_OK)
        return r;
    if (pt_pidparse_children(buf->data, (size_t)n, fn, arg) < 0)
        return PT_READ_FAILED;
    if (m->num_threads <= 1)
        return PT_READ_OK;
    /* a child forked by a worker thread is listed under that thread only */
    int err = pt_threads_refresh(&m->threads, proc_root_fd, m->path, m->num_threads, m->budget);
    if (err)
        return pt_member_read_error(err);
    bool no_fds = false;
    for (uint32_t i = 0; i < m->threads.count; i++) {
        if (m->threads.list[i].tid == m->pid)
            continue; /* the main thread's file was read above */
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_CHILDREN, proc_root_fd, m->path, m->budget, buf);
        no_fds |= pt_member_out_of_fds((int)n);
        if (n > 0)
            pt_pidparse_children(buf->data, (size_t)n, fn, arg);
    }
    return pt_member_end_thread_reads(m, proc_root_fd, no_fds);
}

enum pt_read pt_member_read_fd_limit(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, double now)
{
    if (!m->fd_limit_due && now - m->fd_limit_read_at < PT_FD_LIMIT_PERIOD)
        return PT_READ_OK;
    m->has_fd_limit = false;
    /* by path and closed at once: a kept descriptor would wait a minute */
    int fd = pt_member_open_by_path(m, proc_root_fd, PT_MF_LIMITS);
    if (fd < 0)
        return pt_member_read_error(fd);
    ssize_t n = pt_procfs_pread_record(fd, buf);
    enum pt_read r = pt_member_end_transient(m, proc_root_fd, fd, n < 0 ? pt_member_read_error((int)n) : PT_READ_OK);
    if (r == PT_READ_NO_FDS)
        return r; /* still due */
    m->fd_limit_due = false;
    m->fd_limit_read_at = now;
    if (r != PT_READ_OK)
        return r;
    uint64_t soft;
    int rc = pt_procfs_parse_nofile_limit(buf->data, (size_t)n, &soft);
    if (rc < 0)
        return PT_READ_FAILED; /* left out, never taken as 0 */
    m->fd_limit = soft;
    m->has_fd_limit = rc == 0; /* not "unlimited" */
    return PT_READ_OK;
}

enum pt_read pt_member_read_cmdline(struct pt_member *m, int proc_root_fd, char *text, size_t cap, size_t *len)
{
    bool transient;
    *len = 0;
    int fd = pt_member_file_fd(m, proc_root_fd, PT_MF_CMDLINE, &transient);
    if (fd < 0)
        return pt_member_read_error(fd);
    /* one read of at most cap bytes: its length is its process's to choose */
    ssize_t n = pread(fd, text, cap, 0);
    enum pt_read r = n < 0 ? pt_member_read_error(-errno) : PT_READ_OK;
    *len = n > 0 ? (size_t)n : 0;
    return transient ? pt_member_end_transient(m, proc_root_fd, fd, r) : r;
}
