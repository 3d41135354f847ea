#include "member.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "saturate.h"

/* Open "<member path><name>" relative to the proc root. */
static int open_member_file(const struct pt_member *m, int proc_root_fd, const char *name)
{
    char path[360];
    snprintf(path, sizeof(path), "%s%s", m->path, name);
    return pt_open_at(proc_root_fd, path);
}

enum pt_read pt_read_stat_by_pid(int proc_root_fd, pid_t pid, struct pt_buf *buf, struct pt_stat *out)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/stat", (int)pid);
    int fd = pt_open_at(proc_root_fd, path);
    if (fd < 0)
        return pt_errno_is_gone(fd) ? PT_READ_GONE : PT_READ_FAILED;
    ssize_t n = pt_pread_record(fd, buf);
    close(fd);
    if (n < 0)
        return pt_errno_is_gone((int)n) ? PT_READ_GONE : PT_READ_FAILED;
    return pt_parse_stat(buf->data, (size_t)n, out) == 0 ? PT_READ_OK : PT_READ_FAILED;
}

/* A read through a kept fd failed without saying ESRCH: the file was empty
 * or unparseable. On procfs that does not happen to a live process, but a
 * fixture tree (and a pid reused under our feet) can show it, so decide by
 * looking the identity up again by path. */
static enum pt_read settle_failure(const struct pt_member *m, int proc_root_fd, struct pt_buf *buf)
{
    struct pt_stat st;
    enum pt_read r = pt_read_stat_by_pid(proc_root_fd, m->pid, buf, &st);
    if (r == PT_READ_GONE || (r == PT_READ_OK && st.starttime != m->starttime))
        return PT_READ_GONE;
    return PT_READ_FAILED;
}

/* pread a kept fd; GONE on ESRCH/ENOENT, FAILED on any other error or an
 * empty file (settled by the caller). */
static enum pt_read read_kept(int fd, struct pt_buf *buf, size_t *len)
{
    ssize_t n = pt_pread_record(fd, buf);
    if (n < 0)
        return pt_errno_is_gone((int)n) ? PT_READ_GONE : PT_READ_FAILED;
    *len = (size_t)n;
    return n > 0 ? PT_READ_OK : PT_READ_FAILED;
}

static void take_stat(struct pt_member *m, const struct pt_stat *st)
{
    m->ppid = st->ppid;
    m->zombie = st->state == 'Z' || st->state == 'X';
    m->num_threads = st->num_threads;
    /* each value is at most PT_MAX_COUNT, so the casts are exact */
    m->ctr[PT_CTR_USER_TICKS] = pt_sat_add((int64_t)st->utime, (int64_t)st->cutime);
    m->ctr[PT_CTR_SYSTEM_TICKS] = pt_sat_add((int64_t)st->stime, (int64_t)st->cstime);
    m->ctr[PT_CTR_MINFLT] = pt_sat_add((int64_t)st->minflt, (int64_t)st->cminflt);
    m->ctr[PT_CTR_MAJFLT] = pt_sat_add((int64_t)st->majflt, (int64_t)st->cmajflt);
    m->has_stat = true;
}

static void take_io(struct pt_member *m, const struct pt_io *io)
{
    m->ctr[PT_CTR_RCHAR] = (int64_t)io->rchar;
    m->ctr[PT_CTR_WCHAR] = (int64_t)io->wchar;
    m->ctr[PT_CTR_STORAGE_READ] = (int64_t)io->read_bytes;
    m->ctr[PT_CTR_STORAGE_WRITE] = (int64_t)io->write_bytes;
    m->ctr[PT_CTR_CANCELLED_WRITE] = (int64_t)io->cancelled_write_bytes;
    m->ctr[PT_CTR_SYSCR] = (int64_t)io->syscr;
    m->ctr[PT_CTR_SYSCW] = (int64_t)io->syscw;
    m->has_io = true;
}

/* io is optional: another user's process denies it (EACCES at open or,
 * since io re-checks at every read, later). Keep the last values then. */
static enum pt_read read_io(struct pt_member *m, struct pt_buf *buf)
{
    m->io_fresh = false;
    if (m->io_fd < 0)
        return PT_READ_OK;
    size_t len;
    struct pt_io io;
    enum pt_read r = read_kept(m->io_fd, buf, &len);
    if (r == PT_READ_GONE)
        return r;
    m->io_fresh = r == PT_READ_OK && pt_parse_io(buf->data, len, &io) == 0;
    if (m->io_fresh)
        take_io(m, &io);
    return PT_READ_OK;
}

enum pt_read pt_member_read_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf)
{
    size_t len;
    struct pt_stat st;
    enum pt_read r = read_kept(m->stat_fd, buf, &len);
    if (r == PT_READ_OK && pt_parse_stat(buf->data, len, &st) != 0)
        r = PT_READ_FAILED;
    if (r == PT_READ_OK && st.starttime != m->starttime)
        r = PT_READ_GONE; /* cannot happen through a kept fd; a fixture can lie */
    if (r == PT_READ_FAILED)
        r = settle_failure(m, proc_root_fd, buf);
    if (r != PT_READ_OK)
        return r;
    take_stat(m, &st);
    return read_io(m, buf);
}

static bool out_of_fds(int open_result)
{
    return open_result == -EMFILE || open_result == -ENFILE;
}

/* Note a file the permissions keep from us, so it is not tried again. */
static void note_denied(struct pt_member *m, int open_result, enum pt_denied what)
{
    if (open_result == -EACCES || open_result == -EPERM)
        m->denied |= what;
}

enum pt_read pt_member_open(struct pt_member *m, int proc_root_fd, pid_t pid, uint64_t expected_starttime,
                            struct pt_buf *buf)
{
    memset(m, 0, sizeof(*m));
    m->pid = pid;
    m->stat_fd = m->statm_fd = m->io_fd = m->children_fd = m->smaps_fd = -1;
    m->status_fd = m->fd_dir_fd = -1;
    snprintf(m->path, sizeof(m->path), "%d/", (int)pid);

    m->stat_fd = open_member_file(m, proc_root_fd, "stat");
    if (out_of_fds(m->stat_fd))
        return PT_READ_NO_FDS;
    if (m->stat_fd < 0)
        return pt_errno_is_gone(m->stat_fd) ? PT_READ_GONE : PT_READ_FAILED;
    size_t len;
    struct pt_stat st;
    enum pt_read r = read_kept(m->stat_fd, buf, &len);
    if (r == PT_READ_OK && pt_parse_stat(buf->data, len, &st) != 0)
        r = PT_READ_FAILED;
    if (r == PT_READ_OK && expected_starttime && st.starttime != expected_starttime)
        r = PT_READ_GONE;
    if (r != PT_READ_OK) {
        pt_member_close(m);
        return r;
    }
    m->starttime = st.starttime;
    take_stat(m, &st); /* the stat just read is the first sample */

    m->statm_fd = open_member_file(m, proc_root_fd, "statm");
    m->io_fd = open_member_file(m, proc_root_fd, "io");
    note_denied(m, m->io_fd, PT_DENIED_IO);
    char children[64];
    snprintf(children, sizeof(children), "task/%d/children", (int)pid);
    m->children_fd = open_member_file(m, proc_root_fd, children);
    if (out_of_fds(m->statm_fd) || out_of_fds(m->io_fd) || out_of_fds(m->children_fd)) {
        pt_member_close(m); /* half a member would be sampled wrong for ever */
        return PT_READ_NO_FDS;
    }
    if (m->statm_fd < 0 && pt_errno_is_gone(m->statm_fd)) {
        pt_member_close(m);
        return PT_READ_GONE;
    }
    r = read_io(m, buf);
    if (r != PT_READ_OK)
        pt_member_close(m);
    return r;
}

void pt_member_close(struct pt_member *m)
{
    int *fds[] = {&m->stat_fd, &m->statm_fd, &m->io_fd, &m->children_fd, &m->smaps_fd, &m->status_fd, &m->fd_dir_fd};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

enum pt_read pt_member_read_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, struct pt_statm *out)
{
    if (m->statm_fd < 0)
        return PT_READ_FAILED;
    size_t len;
    enum pt_read r = read_kept(m->statm_fd, buf, &len);
    if (r == PT_READ_OK && pt_parse_statm(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    if (r == PT_READ_FAILED)
        r = settle_failure(m, proc_root_fd, buf);
    return r;
}

enum pt_read pt_member_read_smaps(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                  struct pt_smaps_rollup *out)
{
    if (m->smaps_fd < 0) {
        if (m->denied & PT_DENIED_SMAPS)
            return PT_READ_FAILED;
        m->smaps_fd = open_member_file(m, proc_root_fd, "smaps_rollup");
        note_denied(m, m->smaps_fd, PT_DENIED_SMAPS);
        if (m->smaps_fd < 0)
            return pt_errno_is_gone(m->smaps_fd) ? PT_READ_GONE : PT_READ_FAILED;
    }
    size_t len;
    enum pt_read r = read_kept(m->smaps_fd, buf, &len);
    if (r == PT_READ_OK && pt_parse_smaps_rollup(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    /* A zombie's smaps_rollup says ESRCH while the process still has to be
     * reaped: that is "no memory", not "gone"; stat decides liveness. */
    return r == PT_READ_OK ? r : PT_READ_FAILED;
}

/* A walk over a member's threads (task/TID), for what only per-thread
 * files show: context switches, and children forked by worker threads. */
struct thread_walk {
    const struct pt_member *m;
    int proc_root_fd;
    struct pt_buf *buf;
    int64_t *voluntary, *involuntary; /* add_thread_status */
    int (*fn)(pid_t pid, void *arg);  /* add_thread_children */
    void *arg;
    bool any;
};

static int for_each_thread(struct thread_walk *walk, void (*visit)(pid_t tid, void *walk))
{
    char task[40];
    snprintf(task, sizeof(task), "%stask", walk->m->path);
    return pt_for_each_pid_in(walk->proc_root_fd, task, visit, walk);
}

/* Read task/TID/<name> by path (the thread may end meanwhile). */
static ssize_t read_thread_file(const struct thread_walk *walk, pid_t tid, const char *name)
{
    char path[96];
    snprintf(path, sizeof(path), "%stask/%d/%s", walk->m->path, (int)tid, name);
    int fd = pt_open_at(walk->proc_root_fd, path);
    if (fd < 0)
        return -1;
    ssize_t n = pt_pread_all(fd, walk->buf);
    close(fd);
    return n;
}

/* Parse a status file's context switches into the sums. */
static bool add_status(const struct pt_buf *buf, ssize_t n, int64_t *voluntary, int64_t *involuntary)
{
    struct pt_status st;
    if (n <= 0 || pt_parse_status(buf->data, (size_t)n, &st) != 0)
        return false;
    *voluntary = pt_sat_add(*voluntary, (int64_t)st.voluntary_ctxt_switches);
    *involuntary = pt_sat_add(*involuntary, (int64_t)st.nonvoluntary_ctxt_switches);
    return true;
}

static void add_thread_status(pid_t tid, void *arg)
{
    struct thread_walk *walk = arg;
    ssize_t n = read_thread_file(walk, tid, "status");
    walk->any |= add_status(walk->buf, n, walk->voluntary, walk->involuntary);
}

static void add_thread_children(pid_t tid, void *arg)
{
    struct thread_walk *walk = arg;
    if (tid == walk->m->pid)
        return; /* the main thread's file is kept open and already read */
    ssize_t n = read_thread_file(walk, tid, "children");
    if (n > 0)
        pt_parse_children(walk->buf->data, (size_t)n, walk->fn, walk->arg);
}

enum pt_read pt_member_read_ctx_switches(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                         int64_t *voluntary, int64_t *involuntary)
{
    *voluntary = *involuntary = 0;
    /* /proc/PID/status shows the main thread's own counts only; with one
     * thread that is the process, and the kept fd saves a readdir. */
    if (m->num_threads <= 1) {
        if (m->status_fd < 0) {
            m->status_fd = open_member_file(m, proc_root_fd, "status");
            if (m->status_fd < 0)
                return pt_errno_is_gone(m->status_fd) ? PT_READ_GONE : PT_READ_FAILED;
        }
        ssize_t n = pt_pread_record(m->status_fd, buf);
        if (n < 0 && pt_errno_is_gone((int)n))
            return PT_READ_GONE;
        return add_status(buf, n, voluntary, involuntary) ? PT_READ_OK : PT_READ_FAILED;
    }
    struct thread_walk walk = {
        .m = m, .proc_root_fd = proc_root_fd, .buf = buf, .voluntary = voluntary, .involuntary = involuntary};
    int r = for_each_thread(&walk, add_thread_status);
    if (r < 0)
        return pt_errno_is_gone(r) ? PT_READ_GONE : PT_READ_FAILED;
    return walk.any ? PT_READ_OK : PT_READ_FAILED;
}

/* fd/ entries are descriptor numbers, so the pid walker counts them. */
static void count_entry(pid_t fd, void *count)
{
    (void)fd;
    ++*(int64_t *)count;
}

enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count)
{
    if (m->fd_dir_fd < 0) {
        if (m->denied & PT_DENIED_FDS)
            return PT_READ_FAILED;
        m->fd_dir_fd = open_member_file(m, proc_root_fd, "fd");
        note_denied(m, m->fd_dir_fd, PT_DENIED_FDS);
        if (m->fd_dir_fd < 0)
            return pt_errno_is_gone(m->fd_dir_fd) ? PT_READ_GONE : PT_READ_FAILED;
    }
    /* Since Linux 6.2 the size of a procfs fd directory is its number of
     * entries: one fstat instead of a readdir. Elsewhere (older kernels, a
     * fixture tree) count the entries. */
    struct statfs fs;
    struct stat st;
    if (fstatfs(m->fd_dir_fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC && fstat(m->fd_dir_fd, &st) == 0 &&
        st.st_size > 0) {
        *count = st.st_size;
        return PT_READ_OK;
    }
    *count = 0;
    return pt_for_each_pid_in(m->fd_dir_fd, ".", count_entry, count) == 0 ? PT_READ_OK : PT_READ_FAILED;
}

enum pt_read pt_member_read_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                     int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files)
{
    *no_children_files = false;
    if (m->children_fd < 0) {
        char children[64];
        snprintf(children, sizeof(children), "task/%d/children", (int)m->pid);
        int fd = open_member_file(m, proc_root_fd, children);
        if (fd < 0) {
            /* The process exists (its stat opened) but has no children
             * file: the kernel was built without CONFIG_PROC_CHILDREN. */
            if (fd == -ENOENT && settle_failure(m, proc_root_fd, buf) != PT_READ_GONE)
                *no_children_files = true;
            return pt_errno_is_gone(fd) && !*no_children_files ? PT_READ_GONE : PT_READ_FAILED;
        }
        m->children_fd = fd;
    }
    ssize_t n = pt_pread_all(m->children_fd, buf);
    if (n < 0)
        return pt_errno_is_gone((int)n) ? PT_READ_GONE : PT_READ_FAILED;
    if (pt_parse_children(buf->data, (size_t)n, fn, arg) < 0)
        return PT_READ_FAILED;
    if (m->num_threads > 1) {
        struct thread_walk walk = {.m = m, .proc_root_fd = proc_root_fd, .buf = buf, .fn = fn, .arg = arg};
        for_each_thread(&walk, add_thread_children);
    }
    return PT_READ_OK;
}
