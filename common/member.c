#include "member.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

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
    ssize_t n = pt_pread_all(fd, buf);
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
    ssize_t n = pt_pread_all(fd, buf);
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
    m->ctr[PT_CTR_USER_TICKS] = (int64_t)(st->utime + st->cutime);
    m->ctr[PT_CTR_SYSTEM_TICKS] = (int64_t)(st->stime + st->cstime);
    m->ctr[PT_CTR_MINFLT] = (int64_t)(st->minflt + st->cminflt);
    m->ctr[PT_CTR_MAJFLT] = (int64_t)(st->majflt + st->cmajflt);
    memcpy(m->comm, st->comm, sizeof(m->comm));
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

    /* io is optional: another user's process denies it (EACCES at open or,
     * since io re-checks at every read, later). Keep the last values then. */
    if (m->io_fd >= 0) {
        struct pt_io io;
        r = read_kept(m->io_fd, buf, &len);
        if (r == PT_READ_GONE)
            return r;
        if (r == PT_READ_OK && pt_parse_io(buf->data, len, &io) == 0)
            take_io(m, &io);
    }
    return PT_READ_OK;
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

    m->statm_fd = open_member_file(m, proc_root_fd, "statm");
    m->io_fd = open_member_file(m, proc_root_fd, "io");
    char children[64];
    snprintf(children, sizeof(children), "task/%d/children", (int)pid);
    m->children_fd = open_member_file(m, proc_root_fd, children);
    if (m->statm_fd < 0 && pt_errno_is_gone(m->statm_fd)) {
        pt_member_close(m);
        return PT_READ_GONE;
    }
    r = pt_member_read_counters(m, proc_root_fd, buf);
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
        m->smaps_fd = open_member_file(m, proc_root_fd, "smaps_rollup");
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

/* Parse a status file's context switches into the sums. */
static bool add_status(const struct pt_buf *buf, ssize_t n, int64_t *voluntary, int64_t *involuntary)
{
    struct pt_status st;
    if (n <= 0 || pt_parse_status(buf->data, (size_t)n, &st) != 0)
        return false;
    *voluntary += (int64_t)st.voluntary_ctxt_switches;
    *involuntary += (int64_t)st.nonvoluntary_ctxt_switches;
    return true;
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
        ssize_t n = pt_pread_all(m->status_fd, buf);
        if (n < 0 && pt_errno_is_gone((int)n))
            return PT_READ_GONE;
        return add_status(buf, n, voluntary, involuntary) ? PT_READ_OK : PT_READ_FAILED;
    }
    char task[40];
    snprintf(task, sizeof(task), "%stask", m->path);
    int dir_fd = openat(proc_root_fd, task, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dir_fd >= 0 ? fdopendir(dir_fd) : NULL;
    if (!dir) {
        if (dir_fd >= 0)
            close(dir_fd);
        return dir_fd == -1 && (errno == ENOENT || errno == ESRCH) ? PT_READ_GONE : PT_READ_FAILED;
    }
    bool any = false;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char name[300];
        snprintf(name, sizeof(name), "%s/status", e->d_name);
        int fd = openat(dirfd(dir), name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the thread ended meanwhile */
        ssize_t n = pt_pread_all(fd, buf);
        close(fd);
        any |= add_status(buf, n, voluntary, involuntary);
    }
    closedir(dir);
    return any ? PT_READ_OK : PT_READ_FAILED;
}

enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count)
{
    if (m->fd_dir_fd < 0) {
        m->fd_dir_fd = open_member_file(m, proc_root_fd, "fd");
        if (m->fd_dir_fd < 0) /* EACCES: another user's process */
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
    int dup_fd = openat(m->fd_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!dir) {
        if (dup_fd >= 0)
            close(dup_fd);
        return PT_READ_FAILED;
    }
    int64_t n = 0;
    for (struct dirent *e; (e = readdir(dir));)
        n += e->d_name[0] != '.';
    closedir(dir);
    *count = n;
    return PT_READ_OK;
}

/* Read one children file by path (threads other than the main one). */
static enum pt_read read_thread_children(const struct pt_member *m, int proc_root_fd, const char *tid,
                                         struct pt_buf *buf, int (*fn)(pid_t, void *), void *arg)
{
    char name[300]; /* a d_name is at most 255 bytes */
    snprintf(name, sizeof(name), "task/%s/children", tid);
    int fd = open_member_file(m, proc_root_fd, name);
    if (fd < 0)
        return PT_READ_FAILED; /* the thread ended: its children moved to another thread */
    size_t len = 0;
    enum pt_read r = read_kept(fd, buf, &len);
    close(fd);
    if (r == PT_READ_GONE)
        return PT_READ_FAILED;
    if (pt_parse_children(buf->data, len, fn, arg) < 0)
        return PT_READ_FAILED;
    return PT_READ_OK;
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
    if (m->num_threads <= 1)
        return PT_READ_OK;

    char task[40];
    snprintf(task, sizeof(task), "%stask", m->path);
    int dir_fd = openat(proc_root_fd, task, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return PT_READ_OK;
    DIR *dir = fdopendir(dir_fd);
    if (!dir) {
        close(dir_fd);
        return PT_READ_OK;
    }
    char self[16];
    snprintf(self, sizeof(self), "%d", (int)m->pid);
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || strcmp(e->d_name, self) == 0)
            continue;
        read_thread_children(m, proc_root_fd, e->d_name, buf, fn, arg);
    }
    closedir(dir);
    return PT_READ_OK;
}
