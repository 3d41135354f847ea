/* memberfiles: a member's /proc files, kept open while the descriptor
 * budget allows or opened for one read, and the identity check that
 * vouches for a read by path: every read of a member goes through them,
 * so the rule that no read shows another process is kept in one place. */
#include "member/memberfiles.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

/* What each file is, and its rank for the descriptor budget (fdbudget.h:
 * statm, read at every poll, first; then stat). */
static const struct {
    const char *name; /* under "<pid>/"; the children file adds the pid */
    enum pt_fd_rank rank;
    bool directory;
} member_files[PT_MF_COUNT] = {
    [PT_MF_STAT] = {"stat", PT_FD_STAT, false},      [PT_MF_STATM] = {"statm", PT_FD_STATM, false},
    [PT_MF_IO] = {"io", PT_FD_OTHER, false},         [PT_MF_CHILDREN] = {"children", PT_FD_OTHER, false},
    [PT_MF_STATUS] = {"status", PT_FD_OTHER, false}, [PT_MF_SMAPS] = {"smaps_rollup", PT_FD_OTHER, false},
    [PT_MF_FD_DIR] = {"fd", PT_FD_OTHER, true},      [PT_MF_SCHEDSTAT] = {"schedstat", PT_FD_OTHER, false},
    [PT_MF_LIMITS] = {"limits", PT_FD_OTHER, false}, [PT_MF_CMDLINE] = {"cmdline", PT_FD_OTHER, false},
};

bool pt_member_out_of_fds(int err)
{
    return err == -EMFILE || err == -ENFILE;
}

enum pt_read pt_member_read_error(int err)
{
    if (pt_member_out_of_fds(err))
        return PT_READ_NO_FDS;
    return pt_procfs_errno_is_gone(err) ? PT_READ_GONE : PT_READ_FAILED;
}

void pt_member_drop_file(struct pt_member *m, enum pt_member_file f)
{
    assert((unsigned)f < PT_MF_COUNT);
    if (m->fd[f] < 0)
        return;
    close(m->fd[f]);
    m->fd[f] = -1;
    if (f == PT_MF_STATM)
        m->statm_vouches = false;
    if (m->budget)
        pt_fdbudget_give_rank(m->budget, member_files[f].rank);
}

/* Is m exiting or gone, as a read of its stat now shows? The kernel
 * refuses io, smaps_rollup and fd/ of a process whose memory map is gone,
 * whoever asks but root: those files are owned by root then (mode 0400 io,
 * 0500 fd/: task_dump_owner() in fs/proc/base.c gives a task without an
 * mm root's uid), and the ptrace check of a process without an mm is the
 * same. The map goes in do_exit()'s exit_mm(), after exit_signals() set
 * PF_EXITING in the task's flags, which are never cleared, and stat shows
 * them (field 9): so a refusal caused by an exit is always followed by a
 * stat with PF_EXITING, a state Z or X, or no stat of that process at all.
 * The thread-group leader's stat is the one read, and the one whose mm
 * /proc/PID/fd's owner and io's check use. m->zombie (its last stat read
 * said it had exited) needs no read. */
static enum pt_read exiting_or_gone(const struct pt_member *m, int proc_root_fd)
{
    if (m->zombie)
        return PT_READ_FAILED;
    struct pt_stat st;
    enum pt_read r = pt_member_check_identity_stat(m, proc_root_fd, &st);
    if (r == PT_READ_GONE)
        return r;
    return r == PT_READ_OK && (pt_procfs_task_has_exited(st.state) || (st.flags & PT_PF_EXITING)) ? PT_READ_FAILED
                                                                                                  : PT_READ_OK;
}

enum pt_read pt_member_note_denied(struct pt_member *m, int proc_root_fd, int err, enum pt_member_file f,
                                   enum pt_denied what, enum pt_read r)
{
    if (err != -EACCES && err != -EPERM)
        return r;
    pt_member_drop_file(m, f);
    enum pt_read exited = exiting_or_gone(m, proc_root_fd);
    if (exited != PT_READ_OK)
        return exited; /* a vanish: the file is not denied to us */
    m->denied |= what;
    return r;
}

int pt_member_open_by_path(const struct pt_member *m, int proc_root_fd, enum pt_member_file f)
{
    assert((unsigned)f < PT_MF_COUNT);
    char path[64];
    if (f == PT_MF_CHILDREN)
        snprintf(path, sizeof(path), "%stask/%d/children", m->path, (int)m->pid);
    else
        snprintf(path, sizeof(path), "%s%s", m->path, member_files[f].name);
    int flags = O_RDONLY | O_CLOEXEC | (member_files[f].directory ? O_DIRECTORY : 0);
    int fd = pt_procfs_openat_confined(proc_root_fd, path, flags);
    return fd >= 0 ? fd : -errno;
}

/* A descriptor just opened by path is kept: is it the member's? Every
 * file but stat (whose starttime the reader compares) is vouched for
 * once, by the identity check, before its first read; then it is bound
 * to the process (a reaped one reads ESRCH), and a kept statm on procfs
 * is the identity check itself (pt_member_check_identity). */
static bool vouch_kept(struct pt_member *m, int proc_root_fd, enum pt_member_file f, int fd)
{
    if (f == PT_MF_STAT)
        return true;
    if (pt_member_check_identity(m, proc_root_fd) != PT_READ_OK)
        return false;
    struct statfs fs;
    if (f == PT_MF_STATM)
        m->statm_vouches = fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
    return true;
}

int pt_member_file_fd(struct pt_member *m, int proc_root_fd, enum pt_member_file f, bool *transient)
{
    assert((unsigned)f < PT_MF_COUNT);
    enum pt_fd_rank rank = member_files[f].rank;
    *transient = false;
    int fd = m->fd[f];
    if (fd >= 0) {
        if (!m->budget || !pt_fdbudget_over(m->budget, rank))
            return fd;
        /* a file of a higher rank wants its seat: this read is its last */
        m->fd[f] = -1;
        if (f == PT_MF_STATM)
            m->statm_vouches = false;
        pt_fdbudget_give_rank(m->budget, rank);
        *transient = true;
        return fd;
    }
    fd = pt_member_open_by_path(m, proc_root_fd, f);
    if (fd < 0)
        return fd;
    if (m->budget && pt_fdbudget_take_rank(m->budget, rank)) {
        if (vouch_kept(m, proc_root_fd, f, fd))
            return m->fd[f] = fd;
        pt_fdbudget_give_rank(m->budget, rank); /* the read by path decides */
    }
    *transient = true;
    return fd;
}

enum pt_read pt_member_check_identity_stat(const struct pt_member *m, int proc_root_fd, struct pt_stat *now)
{
    char text[4096]; /* a real stat line is a few hundred bytes */
    int fd = m->fd[PT_MF_STAT];
    bool transient = fd < 0;
    if (transient) {
        fd = pt_member_open_by_path(m, proc_root_fd, PT_MF_STAT);
        if (fd < 0)
            return pt_member_read_error(fd);
    }
    ssize_t n = pread(fd, text, sizeof(text), 0);
    int err = n < 0 ? -errno : 0;
    if (transient)
        close(fd);
    if (n < 0)
        return pt_member_read_error(err);
    struct pt_stat st;
    if (n == 0)
        return PT_READ_GONE;
    if (pt_procfs_parse_stat(text, (size_t)n, &st) != 0)
        return PT_READ_FAILED;
    if (now)
        *now = st;
    return st.starttime == m->starttime ? PT_READ_OK : PT_READ_GONE;
}

enum pt_read pt_member_check_identity(const struct pt_member *m, int proc_root_fd)
{
    /* A kept statm is bound to the member's struct pid: it reads (zeros
     * for a zombie) until the member is reaped, and ESRCH from then on,
     * so a read of it says that the pid is still the member's: 1 us,
     * where stat costs 4 (what it says of a fixture's files, it cannot). */
    if (m->statm_vouches) {
        char text[128];
        ssize_t n = pread(m->fd[PT_MF_STATM], text, sizeof(text), 0);
        if (n >= 0)
            return PT_READ_OK;
        if (errno == ESRCH)
            return PT_READ_GONE;
    }
    return pt_member_check_identity_stat(m, proc_root_fd, NULL);
}

enum pt_read pt_member_end_transient(const struct pt_member *m, int proc_root_fd, int fd, enum pt_read r)
{
    close(fd);
    if (r != PT_READ_OK)
        return r;
    return pt_member_check_identity(m, proc_root_fd);
}

enum pt_read pt_member_read_file(struct pt_member *m, int proc_root_fd, enum pt_member_file f, struct pt_buf *buf,
                                 size_t *len, int *err)
{
    bool transient;
    int fd = pt_member_file_fd(m, proc_root_fd, f, &transient);
    *err = fd < 0 ? fd : 0;
    *len = 0;
    if (fd < 0)
        return pt_member_read_error(fd);
    ssize_t n = pt_procfs_pread_record(fd, buf);
    *err = n < 0 ? (int)n : 0;
    enum pt_read r = n < 0 ? pt_member_read_error((int)n) : n > 0 ? PT_READ_OK : PT_READ_FAILED;
    *len = n > 0 ? (size_t)n : 0;
    return transient ? pt_member_end_transient(m, proc_root_fd, fd, r) : r;
}

enum pt_read pt_member_settle_failure(const struct pt_member *m, int proc_root_fd)
{
    enum pt_read r = pt_member_check_identity(m, proc_root_fd);
    return r == PT_READ_OK ? PT_READ_FAILED : r;
}

enum pt_read pt_member_end_thread_reads(const struct pt_member *m, int proc_root_fd, bool no_fds)
{
    if (no_fds)
        return PT_READ_NO_FDS;
    return pt_member_check_identity(m, proc_root_fd);
}
