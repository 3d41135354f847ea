/* memberthreads: the per-thread counts and usage of a member. */
#include "member/memberthreads.h"

#include <assert.h>
#include <string.h>
#include <unistd.h>

#include "member/member.h"
#include "procfs/procfile.h"
#include "util/saturate.h"

/* A schedstat (three numbers) from its descriptor. */
static bool parse_schedstat_at(int fd, struct pt_schedstat *out)
{
    char text[128];
    ssize_t n = pread(fd, text, sizeof(text), 0);
    return n > 0 && pt_procfs_parse_schedstat(text, (size_t)n, out) == 0;
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
    int fd = pt_member_file_fd(m, proc_root_fd, PT_MF_SCHEDSTAT, &transient);
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
    if (n <= 0 || pt_kvparse_status(buf->data, (size_t)n, &st) != 0)
        return false;
    *voluntary = pt_sat_add(*voluntary, (int64_t)st.voluntary_ctxt_switches);
    *involuntary = pt_sat_add(*involuntary, (int64_t)st.nonvoluntary_ctxt_switches);
    return true;
}

/* Thread i's usage record: the main thread's is the member's own. */
static struct pt_thread_usage *thread_usage(struct pt_member *m, uint32_t i)
{
    assert(i < m->threads.count);
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
        *no_fds |= pt_member_out_of_fds((int)n);
        u->voluntary = u->involuntary = 0;
        u->ctx_now = add_status(buf, n, &u->voluntary, &u->involuntary);
        now[PT_TC_VOLUNTARY] = pt_sat_add(now[PT_TC_VOLUNTARY], u->voluntary);
        now[PT_TC_INVOLUNTARY] = pt_sat_add(now[PT_TC_INVOLUNTARY], u->involuntary);
        got |= u->ctx_now ? PT_TC_SWITCHES : 0;
    }
    if (want & (1u << PT_TC_RUN_DELAY)) {
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_SCHEDSTAT, proc_root_fd, m->path, m->budget, buf);
        struct pt_schedstat ss;
        *no_fds |= pt_member_out_of_fds((int)n);
        if (n > 0 && pt_procfs_parse_schedstat(buf->data, (size_t)n, &ss) == 0) {
            now[PT_TC_RUN_DELAY] = pt_sat_add(now[PT_TC_RUN_DELAY], (int64_t)ss.run_delay_ns);
            got |= 1u << PT_TC_RUN_DELAY;
        }
    }
    if (want & (1u << PT_TC_BLKIO_DELAY)) {
        ssize_t n = pt_threads_read(&m->threads, i, PT_TF_STAT, proc_root_fd, m->path, m->budget, buf);
        struct pt_stat st;
        *no_fds |= pt_member_out_of_fds((int)n);
        if (n > 0 && pt_procfs_parse_stat_with_blkio(buf->data, (size_t)n, &st) == 0 && st.has_blkio &&
            pt_threads_vouch(&m->threads, i, st.starttime)) {
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
    enum pt_read r = pt_member_read_file(m, proc_root_fd, PT_MF_STATUS, buf, &len, &err);
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
        return pt_member_read_error(err);
    bool no_fds = false;
    /* a count is known when one thread's read of it worked: one that
     * vanished meanwhile is its exit record's */
    for (uint32_t i = 0; i < m->threads.count; i++)
        *got |= read_one_thread(m, i, proc_root_fd, buf, want, ns_per_tick, now, &no_fds);
    if (!*got && !no_fds)
        return PT_READ_FAILED;
    return pt_member_end_thread_reads(m, proc_root_fd, no_fds);
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
    return pt_threads_usage_of(&m->threads, tid);
}

void pt_member_threads_settled(struct pt_member *m)
{
    pt_threads_forget_ended(&m->threads);
}

void pt_member_hand_thread_usage(struct pt_member *m, struct pt_thread_usage *main, struct pt_threads *threads)
{
    *main = m->main_usage;
    pt_threads_close(&m->threads, m->budget);
    *threads = m->threads;
    m->threads = (struct pt_threads){0};
}

/* One thread's name and own CPU from its task/TID/stat. */
static void read_thread_stat(struct pt_member *m, uint32_t i, int proc_root_fd, struct pt_buf *buf, bool *no_fds)
{
    struct pt_thread_usage *u = thread_usage(m, i);
    ssize_t n = pt_threads_read(&m->threads, i, PT_TF_STAT, proc_root_fd, m->path, m->budget, buf);
    struct pt_stat st;
    *no_fds |= pt_member_out_of_fds((int)n);
    u->cpu_now =
        n > 0 && pt_procfs_parse_stat(buf->data, (size_t)n, &st) == 0 && pt_threads_vouch(&m->threads, i, st.starttime);
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
        return pt_member_read_error(err);
    bool no_fds = false;
    for (uint32_t i = 0; i < m->threads.count; i++)
        read_thread_stat(m, i, proc_root_fd, buf, &no_fds);
    return pt_member_end_thread_reads(m, proc_root_fd, no_fds);
}
