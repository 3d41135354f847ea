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
#include "threads.h"

/* What each file is, and whether it is read at every poll (hot: it may
 * use the whole descriptor budget, see fdbudget.h). */
static const struct {
    const char *name; /* under "<pid>/"; the children file adds the pid */
    bool hot;
    bool directory;
} member_files[PT_MF_COUNT] = {
    [PT_MF_STAT] = {"stat", true, false},      [PT_MF_STATM] = {"statm", true, false},
    [PT_MF_IO] = {"io", false, false},         [PT_MF_CHILDREN] = {"children", false, false},
    [PT_MF_STATUS] = {"status", false, false}, [PT_MF_SMAPS] = {"smaps_rollup", false, false},
    [PT_MF_FD_DIR] = {"fd", false, true},      [PT_MF_SCHEDSTAT] = {"schedstat", false, false},
    [PT_MF_LIMITS] = {"limits", false, false},
};

static bool out_of_fds(int err)
{
    return err == -EMFILE || err == -ENFILE;
}

/* An open() or read() error as a read result. */
static enum pt_read read_error(int err)
{
    if (out_of_fds(err))
        return PT_READ_NO_FDS;
    return pt_errno_is_gone(err) ? PT_READ_GONE : PT_READ_FAILED;
}

/* Close a kept descriptor and give it back to the budget. */
static void drop_file(struct pt_member *m, enum pt_member_file f)
{
    if (m->fd[f] < 0)
        return;
    close(m->fd[f]);
    m->fd[f] = -1;
    if (m->budget)
        pt_fd_budget_give(m->budget, member_files[f].hot);
}

/* Note a file the permissions keep from us (at open or at a read), so it
 * is not tried again. */
static void note_denied(struct pt_member *m, int err, enum pt_member_file f, enum pt_denied what)
{
    if (err != -EACCES && err != -EPERM)
        return;
    m->denied |= what;
    drop_file(m, f);
}

/* Open "<pid>/<file>" under the proc root. Returns fd or -errno. */
static int open_by_path(const struct pt_member *m, int proc_root_fd, enum pt_member_file f)
{
    char path[64];
    if (f == PT_MF_CHILDREN)
        snprintf(path, sizeof(path), "%stask/%d/children", m->path, (int)m->pid);
    else
        snprintf(path, sizeof(path), "%s%s", m->path, member_files[f].name);
    int flags = O_RDONLY | O_CLOEXEC | (member_files[f].directory ? O_DIRECTORY : 0);
    int fd = openat(proc_root_fd, path, flags);
    return fd >= 0 ? fd : -errno;
}

/* A descriptor of file f for one read: the kept one; or a new one, kept
 * when the budget allows (*transient false) or to be closed by the caller
 * with end_transient() after its read (*transient true). -errno when the
 * file cannot be opened. */
static int member_file(struct pt_member *m, int proc_root_fd, enum pt_member_file f, bool *transient)
{
    *transient = false;
    if (m->fd[f] >= 0)
        return m->fd[f];
    int fd = open_by_path(m, proc_root_fd, f);
    if (fd < 0)
        return fd;
    if (m->budget && pt_fd_budget_take(m->budget, member_files[f].hot))
        return m->fd[f] = fd;
    *transient = true;
    return fd;
}

enum pt_read pt_read_stat_by_pid(int proc_root_fd, pid_t pid, struct pt_buf *buf, struct pt_stat *out)
{
    char path[32];
    snprintf(path, sizeof(path), "%d/stat", (int)pid);
    int fd = pt_open_at(proc_root_fd, path);
    if (fd < 0)
        return read_error(fd);
    ssize_t n = pt_pread_record(fd, buf);
    close(fd);
    if (n < 0)
        return read_error((int)n);
    return pt_parse_stat(buf->data, (size_t)n, out) == 0 ? PT_READ_OK : PT_READ_FAILED;
}

/* Is the member still the process it was? Through the kept stat
 * descriptor (ESRCH once reaped), else by path with the starttime
 * compared; the stat read goes to *now when it is not NULL. Reads into
 * its own buffer: the caller's holds data. */
static enum pt_read check_identity_stat(const struct pt_member *m, int proc_root_fd, struct pt_stat *now)
{
    char text[4096]; /* a real stat line is a few hundred bytes */
    int fd = m->fd[PT_MF_STAT];
    bool transient = fd < 0;
    if (transient) {
        fd = open_by_path(m, proc_root_fd, PT_MF_STAT);
        if (fd < 0)
            return read_error(fd);
    }
    ssize_t n = pread(fd, text, sizeof(text), 0);
    int err = n < 0 ? -errno : 0;
    if (transient)
        close(fd);
    if (n < 0)
        return read_error(err);
    struct pt_stat st;
    if (n == 0)
        return PT_READ_GONE;
    if (pt_parse_stat(text, (size_t)n, &st) != 0)
        return PT_READ_FAILED;
    if (now)
        *now = st;
    return st.starttime == m->starttime ? PT_READ_OK : PT_READ_GONE;
}

static enum pt_read check_identity(const struct pt_member *m, int proc_root_fd)
{
    return check_identity_stat(m, proc_root_fd, NULL);
}

/* Close a descriptor member_file() did not keep, and vouch for what was
 * read through it (see member.h). */
static enum pt_read end_transient(const struct pt_member *m, int proc_root_fd, int fd, enum pt_read r)
{
    close(fd);
    if (r != PT_READ_OK)
        return r;
    return check_identity(m, proc_root_fd);
}

/* Read a single-record file f into buf. GONE on ESRCH/ENOENT, NO_FDS when
 * it cannot be opened for lack of descriptors, FAILED on any other error
 * or an empty file (settled by the caller). *err gets the open's or the
 * read's -errno (0 when both worked), for the callers that note denials. */
static enum pt_read read_file(struct pt_member *m, int proc_root_fd, enum pt_member_file f, struct pt_buf *buf,
                              size_t *len, int *err)
{
    bool transient;
    int fd = member_file(m, proc_root_fd, f, &transient);
    *err = fd < 0 ? fd : 0;
    *len = 0;
    if (fd < 0)
        return read_error(fd);
    ssize_t n = pt_pread_record(fd, buf);
    *err = n < 0 ? (int)n : 0;
    enum pt_read r = n < 0 ? read_error((int)n) : n > 0 ? PT_READ_OK : PT_READ_FAILED;
    *len = n > 0 ? (size_t)n : 0;
    return transient ? end_transient(m, proc_root_fd, fd, r) : r;
}

/* A read failed without saying ESRCH: the file was empty or unparseable.
 * On procfs that does not happen to a live process, but a fixture tree
 * (and a pid reused under our feet) can show it, so decide by the
 * member's identity (check_identity): still itself, the read failed. */
static enum pt_read settle_failure(const struct pt_member *m, int proc_root_fd)
{
    enum pt_read r = check_identity(m, proc_root_fd);
    return r == PT_READ_OK ? PT_READ_FAILED : r;
}

static void take_stat(struct pt_member *m, const struct pt_stat *st)
{
    m->ppid = st->ppid;
    m->state = st->state;
    memcpy(m->comm, st->comm, sizeof(m->comm));
    m->zombie = st->state == 'Z' || st->state == 'X';
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
    enum pt_read r = read_file(m, proc_root_fd, PT_MF_IO, buf, &len, &err);
    note_denied(m, err, PT_MF_IO, PT_DENIED_IO);
    if (m->denied & PT_DENIED_IO)
        m->acct.has_io = false;
    if (r == PT_READ_GONE || r == PT_READ_NO_FDS)
        return r;
    m->acct.io_fresh = r == PT_READ_OK && pt_parse_io(buf->data, len, &io) == 0;
    if (m->acct.io_fresh)
        take_io(m, &io);
    return PT_READ_OK;
}

/* stat, parsed. It is its own identity check: with expected_starttime
 * (0 for a process not yet known), a read by path needs no second one. */
static enum pt_read read_stat(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, uint64_t expected_starttime,
                              bool blkio, struct pt_stat *st)
{
    bool transient;
    int fd = member_file(m, proc_root_fd, PT_MF_STAT, &transient);
    if (fd < 0)
        return read_error(fd);
    ssize_t n = pt_pread_record(fd, buf);
    if (transient)
        close(fd);
    if (n < 0)
        return read_error((int)n);
    if (n == 0 || (blkio ? pt_parse_stat_with_blkio : pt_parse_stat)(buf->data, (size_t)n, st) != 0)
        return PT_READ_FAILED;
    if (expected_starttime && st->starttime != expected_starttime)
        return PT_READ_GONE; /* a kept fd cannot show this; a path or a fixture can */
    return PT_READ_OK;
}

enum pt_read pt_member_read_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, bool blkio)
{
    struct pt_stat st;
    enum pt_read r = read_stat(m, proc_root_fd, buf, m->starttime, blkio, &st);
    if (r == PT_READ_FAILED)
        r = settle_failure(m, proc_root_fd);
    if (r != PT_READ_OK)
        return r;
    /* A new name is most often a new program (exec), which the process
     * events may not have told: its files are opened again. */
    bool renamed = m->acct.has_stat && strcmp(st.comm, m->comm) != 0;
    take_stat(m, &st);
    m->blkio_ticks = st.blkio_ticks;
    m->has_blkio = st.has_blkio;
    if (renamed)
        pt_member_reopen(m);
    return read_io(m, proc_root_fd, buf);
}

void pt_member_reopen(struct pt_member *m)
{
    drop_file(m, PT_MF_SMAPS);
    drop_file(m, PT_MF_IO);
    drop_file(m, PT_MF_FD_DIR);
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
    m->budget = budget;
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
        drop_file(m, f);
    pt_threads_free(&m->threads, m->budget);
}

enum pt_read pt_member_read_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, struct pt_statm *out)
{
    size_t len;
    int err;
    enum pt_read r = read_file(m, proc_root_fd, PT_MF_STATM, buf, &len, &err);
    if (r == PT_READ_OK && pt_parse_statm(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    if (r == PT_READ_FAILED)
        r = settle_failure(m, proc_root_fd);
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
    enum pt_read r = read_file(m, proc_root_fd, PT_MF_SMAPS, buf, &len, &err);
    /* A kept smaps_rollup is bound to the memory map it was opened on:
     * once that is gone it reads ESRCH. A zombie's is (it has none now);
     * a process still running has exec'd a new program, whose files are
     * opened again, under the permissions it has now. */
    struct pt_stat st;
    if (kept && err == -ESRCH && check_identity_stat(m, proc_root_fd, &st) == PT_READ_OK && st.state != 'Z' &&
        st.state != 'X') {
        pt_member_reopen(m);
        r = read_file(m, proc_root_fd, PT_MF_SMAPS, buf, &len, &err);
    }
    note_denied(m, err, PT_MF_SMAPS, PT_DENIED_SMAPS);
    if (r == PT_READ_OK && pt_parse_smaps_rollup(buf->data, len, out) != 0)
        r = PT_READ_FAILED;
    /* A zombie's smaps_rollup says ESRCH while the process still has to be
     * reaped: that is "no memory", not "gone"; stat decides liveness. */
    return r == PT_READ_OK || r == PT_READ_NO_FDS ? r : PT_READ_FAILED;
}

/* A thread's file was read by path: vouch for the member after reading
 * (see member.h); no descriptor is the read's own failure. */
static enum pt_read end_thread_reads(const struct pt_member *m, int proc_root_fd, bool no_fds)
{
    if (no_fds)
        return PT_READ_NO_FDS;
    return check_identity(m, proc_root_fd);
}

/* A schedstat (three numbers) from its descriptor. */
static bool parse_schedstat_at(int fd, struct pt_schedstat *out)
{
    char text[128];
    ssize_t n = pread(fd, text, sizeof(text), 0);
    return n > 0 && pt_parse_schedstat(text, (size_t)n, out) == 0;
}

/* schedstat holds the run-queue delay, and saves status reads: status is
 * dear (8.8 us a read, against 1.5 for schedstat), and its context
 * switches can only have moved if the task was switched in since the
 * last read, which schedstat's third field counts. A switch out just
 * after a read, with no switch in since, shows at the next switch in:
 * late, never lost. Without schedstat (CONFIG_SCHED_INFO, a fixture)
 * status is read every time and the delay is not known. */
static bool read_schedstat(struct pt_member *m, int proc_root_fd, struct pt_schedstat *out)
{
    bool transient;
    int fd = member_file(m, proc_root_fd, PT_MF_SCHEDSTAT, &transient);
    if (fd < 0)
        return false;
    bool ok = parse_schedstat_at(fd, out);
    if (transient)
        close(fd);
    return ok;
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

/* Thread i's usage record: the main thread's is the member's own. */
static struct pt_thread_usage *thread_usage(struct pt_member *m, uint32_t i)
{
    struct pt_thread *th = &m->threads.list[i];
    return th->tid == m->pid ? &m->main_usage : &th->usage;
}

/* One thread's: its status's switches and its stat's block-I/O delay. */
static unsigned read_one_thread(struct pt_member *m, uint32_t i, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                int64_t ns_per_tick, int64_t now[PT_TC_COUNT], bool *no_fds)
{
    unsigned got = 0;
    struct pt_thread_usage *u = thread_usage(m, i);
    if (want & PT_TC_SWITCHES) {
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_STATUS, proc_root_fd, m->path, m->budget, buf);
        *no_fds |= out_of_fds((int)n);
        u->voluntary = u->involuntary = 0;
        u->ctx_now = add_status(buf, n, &u->voluntary, &u->involuntary);
        now[PT_TC_VOLUNTARY] = pt_sat_add(now[PT_TC_VOLUNTARY], u->voluntary);
        now[PT_TC_INVOLUNTARY] = pt_sat_add(now[PT_TC_INVOLUNTARY], u->involuntary);
        got |= u->ctx_now ? PT_TC_SWITCHES : 0;
    }
    if (want & (1u << PT_TC_RUN_DELAY)) {
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_SCHEDSTAT, proc_root_fd, m->path, m->budget, buf);
        struct pt_schedstat ss;
        *no_fds |= out_of_fds((int)n);
        if (n > 0 && pt_parse_schedstat(buf->data, (size_t)n, &ss) == 0) {
            now[PT_TC_RUN_DELAY] = pt_sat_add(now[PT_TC_RUN_DELAY], (int64_t)ss.run_delay_ns);
            got |= 1u << PT_TC_RUN_DELAY;
        }
    }
    if (want & (1u << PT_TC_BLKIO_DELAY)) {
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_STAT, proc_root_fd, m->path, m->budget, buf);
        struct pt_stat st;
        *no_fds |= out_of_fds((int)n);
        if (n > 0 && pt_parse_stat_with_blkio(buf->data, (size_t)n, &st) == 0 && st.has_blkio) {
            now[PT_TC_BLKIO_DELAY] =
                pt_sat_add(now[PT_TC_BLKIO_DELAY], pt_sat_mul((int64_t)st.blkio_ticks, ns_per_tick));
            got |= 1u << PT_TC_BLKIO_DELAY;
        }
    }
    return got;
}

/* One thread: the member's own files. */
static enum pt_read read_single_thread(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                       int64_t ns_per_tick, int64_t now[PT_TC_COUNT], unsigned *got)
{
    struct pt_schedstat ss;
    bool sched = read_schedstat(m, proc_root_fd, &ss);
    if (sched && (want & (1u << PT_TC_RUN_DELAY))) {
        now[PT_TC_RUN_DELAY] = (int64_t)ss.run_delay_ns;
        *got |= 1u << PT_TC_RUN_DELAY;
    }
    if ((want & (1u << PT_TC_BLKIO_DELAY)) && m->has_blkio) {
        now[PT_TC_BLKIO_DELAY] = pt_sat_mul((int64_t)m->blkio_ticks, ns_per_tick);
        *got |= 1u << PT_TC_BLKIO_DELAY;
    }
    if (!(want & PT_TC_SWITCHES))
        return PT_READ_OK;
    if (sched && m->has_timeslices && ss.timeslices == m->timeslices &&
        (m->tc_known & PT_TC_SWITCHES) == PT_TC_SWITCHES) {
        now[PT_TC_VOLUNTARY] = m->tc[PT_TC_VOLUNTARY]; /* not switched in since: nothing new */
        now[PT_TC_INVOLUNTARY] = m->tc[PT_TC_INVOLUNTARY];
        *got |= PT_TC_SWITCHES;
        return PT_READ_OK;
    }
    size_t len;
    int err;
    enum pt_read r = read_file(m, proc_root_fd, PT_MF_STATUS, buf, &len, &err);
    if (r != PT_READ_OK)
        return r;
    if (!add_status(buf, (ssize_t)len, &now[PT_TC_VOLUNTARY], &now[PT_TC_INVOLUNTARY]))
        return PT_READ_FAILED;
    *got |= PT_TC_SWITCHES;
    m->timeslices = ss.timeslices;
    m->has_timeslices = sched;
    return PT_READ_OK;
}

enum pt_read pt_member_read_tcounts(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                    int64_t ns_per_tick, int64_t now[PT_TC_COUNT], unsigned *got)
{
    memset(now, 0, PT_TC_COUNT * sizeof(*now));
    *got = 0;
    m->main_usage.ctx_now = false;
    /* /proc/PID/status and schedstat show the main thread's own counts
     * only; with one thread that is the process, and one file saves a
     * readdir. */
    if (m->num_threads <= 1)
        return read_single_thread(m, proc_root_fd, buf, want, ns_per_tick, now, got);
    int err = pt_threads_refresh(&m->threads, proc_root_fd, m->path, m->num_threads, m->budget);
    if (err)
        return read_error(err);
    bool no_fds = false;
    /* a count is known when one thread's read of it worked: one that
     * vanished meanwhile is its exit record's */
    for (uint32_t i = 0; i < m->threads.count; i++)
        *got |= read_one_thread(m, i, proc_root_fd, buf, want, ns_per_tick, now, &no_fds);
    if (!*got && !no_fds)
        return PT_READ_FAILED;
    return end_thread_reads(m, proc_root_fd, no_fds);
}

struct pt_thread_usage *pt_member_thread_usage(struct pt_member *m, uint32_t i, uint32_t *n)
{
    bool several = m->num_threads > 1 && m->threads.count > 0;
    *n = several ? m->threads.count : 1;
    return several ? thread_usage(m, i) : &m->main_usage;
}

struct pt_thread_usage *pt_member_thread_usage_of(struct pt_member *m, pid_t tid)
{
    if (tid == m->pid)
        return &m->main_usage;
    uint32_t i = pt_threads_find(&m->threads, tid);
    return i < m->threads.count ? &m->threads.list[i].usage : NULL;
}

/* One thread's name and own CPU from its task/TID/stat. */
static void read_thread_stat(struct pt_member *m, uint32_t i, int proc_root_fd, struct pt_buf *buf, bool *no_fds)
{
    struct pt_thread_usage *u = thread_usage(m, i);
    ssize_t n = pt_threads_read(&m->threads, i, PT_TF_STAT, proc_root_fd, m->path, m->budget, buf);
    struct pt_stat st;
    *no_fds |= out_of_fds((int)n);
    u->cpu_now = n > 0 && pt_parse_stat(buf->data, (size_t)n, &st) == 0;
    if (!u->cpu_now)
        return;
    memcpy(u->comm, st.comm, sizeof(u->comm));
    u->utime = (int64_t)st.utime;
    u->stime = (int64_t)st.stime;
}

enum pt_read pt_member_read_thread_usage(struct pt_member *m, int proc_root_fd, struct pt_buf *buf)
{
    struct pt_thread_usage *main = &m->main_usage;
    if (m->num_threads <= 1 && !main->ctx_now && (m->tc_known & PT_TC_SWITCHES) == PT_TC_SWITCHES) {
        /* its status is the thread's */
        main->voluntary = m->tc[PT_TC_VOLUNTARY];
        main->involuntary = m->tc[PT_TC_INVOLUNTARY];
        main->ctx_now = true;
    }
    if (m->num_threads <= 1 && !m->had_threads) { /* the thread is the member, whose stat is read */
        memcpy(main->comm, m->comm, sizeof(main->comm));
        main->utime = m->acct.own[PT_CTR_USER_TICKS];
        main->stime = m->acct.own[PT_CTR_SYSTEM_TICKS];
        main->cpu_now = m->acct.has_stat;
        return PT_READ_OK;
    }
    /* Each thread's own CPU from its task/TID/stat, even for one left:
     * the process's stat counts the threads that have exited too. */
    int err = pt_threads_refresh(&m->threads, proc_root_fd, m->path, m->num_threads, m->budget);
    if (err)
        return read_error(err);
    bool no_fds = false;
    for (uint32_t i = 0; i < m->threads.count; i++)
        read_thread_stat(m, i, proc_root_fd, buf, &no_fds);
    return end_thread_reads(m, proc_root_fd, no_fds);
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
    int r = pt_for_each_pid_in(dir_fd, ".", count_entry, count);
    return r == 0 ? PT_READ_OK : read_error(r);
}

enum pt_read pt_member_count_fds(struct pt_member *m, int proc_root_fd, int64_t *count)
{
    if (m->denied & PT_DENIED_FDS)
        return PT_READ_FAILED;
    bool transient;
    int fd = member_file(m, proc_root_fd, PT_MF_FD_DIR, &transient);
    if (fd < 0) {
        note_denied(m, fd, PT_MF_FD_DIR, PT_DENIED_FDS);
        return read_error(fd);
    }
    enum pt_read r = count_dir_entries(m, fd, count);
    return transient ? end_transient(m, proc_root_fd, fd, r) : r;
}

enum pt_read pt_member_read_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                     int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files)
{
    *no_children_files = false;
    bool transient;
    int fd = member_file(m, proc_root_fd, PT_MF_CHILDREN, &transient);
    if (fd < 0) {
        /* The process exists (its stat opened) but has no children
         * file: the kernel was built without CONFIG_PROC_CHILDREN. */
        if (fd != -ENOENT)
            return read_error(fd);
        enum pt_read r = settle_failure(m, proc_root_fd);
        *no_children_files = r == PT_READ_FAILED;
        return r;
    }
    ssize_t n = pt_pread_all(fd, buf);
    enum pt_read r = n < 0 ? read_error((int)n) : PT_READ_OK;
    if (transient) {
        close(fd);
        /* vouch for the list before anyone joins the pids in it */
        if (r == PT_READ_OK)
            r = check_identity(m, proc_root_fd);
    }
    if (r != PT_READ_OK)
        return r;
    if (pt_parse_children(buf->data, (size_t)n, fn, arg) < 0)
        return PT_READ_FAILED;
    if (m->num_threads <= 1)
        return PT_READ_OK;
    /* a child forked by a worker thread is listed under that thread only */
    int err = pt_threads_refresh(&m->threads, proc_root_fd, m->path, m->num_threads, m->budget);
    if (err)
        return read_error(err);
    bool no_fds = false;
    for (uint32_t i = 0; i < m->threads.count; i++) {
        if (m->threads.list[i].tid == m->pid)
            continue; /* the main thread's file was read above */
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_CHILDREN, proc_root_fd, m->path, m->budget, buf);
        no_fds |= out_of_fds((int)n);
        if (n > 0)
            pt_parse_children(buf->data, (size_t)n, fn, arg);
    }
    return end_thread_reads(m, proc_root_fd, no_fds);
}

enum pt_read pt_member_read_fd_limit(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, double now)
{
    if (!m->fd_limit_due && now - m->fd_limit_read_at < PT_FD_LIMIT_PERIOD)
        return PT_READ_OK;
    m->has_fd_limit = false;
    /* by path and closed at once: a kept descriptor would wait a minute */
    int fd = open_by_path(m, proc_root_fd, PT_MF_LIMITS);
    if (fd < 0)
        return read_error(fd);
    ssize_t n = pt_pread_record(fd, buf);
    enum pt_read r = end_transient(m, proc_root_fd, fd, n < 0 ? read_error((int)n) : PT_READ_OK);
    if (r == PT_READ_NO_FDS)
        return r; /* still due */
    m->fd_limit_due = false;
    m->fd_limit_read_at = now;
    if (r != PT_READ_OK)
        return r;
    uint64_t soft;
    int rc = pt_parse_nofile_limit(buf->data, (size_t)n, &soft);
    if (rc < 0)
        return PT_READ_FAILED; /* left out, never taken as 0 */
    m->fd_limit = soft;
    m->has_fd_limit = rc == 0; /* not "unlimited" */
    return PT_READ_OK;
}
