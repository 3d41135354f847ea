#include "bpf/taskfold.h"

#include <string.h>

#include "procfs/procmax.h"
#include "util/saturate.h"

struct pt_cputime pt_taskfold_cputime(uint64_t utime, uint64_t stime, uint64_t rtime, struct pt_cputime *prev)
{
    /* kernel/sched/cputime.c, cputime_adjust, line for line */
    if (prev->stime + prev->utime >= rtime)
        return *prev;
    if (stime == 0) {
        utime = rtime;
    } else if (utime == 0) {
        stime = rtime;
    } else {
        /* mul_u64_u64_div_u64: the product in 128 bits, truncated */
        stime = (uint64_t)((unsigned __int128)stime * rtime / ((unsigned __int128)stime + utime));
        if (stime > rtime)
            stime = rtime;
    }
    if (stime < prev->stime)
        stime = prev->stime;
    utime = rtime - stime;
    if (utime < prev->utime) {
        utime = prev->utime;
        stime = rtime - utime;
    }
    prev->stime = stime;
    prev->utime = utime;
    return *prev;
}

uint64_t pt_taskfold_ticks(uint64_t ns, long ticks_per_second)
{
    uint64_t per_tick = ticks_per_second > 0 ? UINT64_C(1000000000) / (uint64_t)ticks_per_second : 1;
    return ns / per_tick;
}

/* include/linux/sched.h: the state bits a task reports, and the order of
 * fs/proc/array.c's task_state_array (fls of the reported bit). */
#define TASK_REPORT 0x7fu
#define TASK_IDLE (0x2u | 0x400u) /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define TASK_REPORT_IDLE 0x80u
#define TASK_RTLOCK_WAIT 0x1000u
#define TASK_FROZEN 0x8000u
#define TASK_UNINTERRUPTIBLE 0x2u

char pt_taskfold_state_letter(uint32_t state, uint32_t exit_state)
{
    static const char letters[] = "RSDTtXZPI";
    uint32_t reported = (state | exit_state) & TASK_REPORT;
    if ((state & TASK_IDLE) == TASK_IDLE)
        reported = TASK_REPORT_IDLE;
    if (state & (TASK_RTLOCK_WAIT | TASK_FROZEN))
        reported = TASK_UNINTERRUPTIBLE;
    int fls = 0;
    while (reported) {
        fls++;
        reported >>= 1;
    }
    return letters[fls];
}

static uint64_t count(uint64_t v)
{
    return v > PT_MAX_COUNT ? PT_MAX_COUNT : v;
}

static uint64_t clamp_pages(uint64_t v)
{
    return v > PT_MAX_PAGES ? PT_MAX_PAGES : v;
}

/* task_statm: resident is file + anon + shmem, shared file + shmem (each
 * counter's sum clamped at 0 by the program). */
static bool statm_of(const struct pt_taskiter *it, const struct pt_taskrec_mm *mm, struct pt_statm *out)
{
    *out = (struct pt_statm){
        .size = clamp_pages(mm->total_vm),
        .resident = clamp_pages(mm->rss[0] + mm->rss[1] + mm->rss[3]),
        .shared = clamp_pages(mm->rss[0] + mm->rss[3]),
    };
    return mm->has_rss != 0 && pt_taskiter_statm_sums(it);
}

bool pt_taskfold_statm(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, struct pt_statm *out,
                       uint64_t *starttime, int64_t *fds)
{
    if (fds)
        *fds = -1;
    const struct pt_taskrec_statm *r = pt_taskiter_statm(it, tgid);
    if (!r || (pid_t)r->tgid != tgid)
        return false;
    *starttime = pt_taskfold_ticks(r->start_boottime, ticks_per_second);
    if (fds && r->has_fds)
        *fds = (int64_t)r->fds; /* at most PT_TASKREC_FD_WORDS x 64 */
    return statm_of(it, &r->mm, out);
}

bool pt_taskfold_fds(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, int64_t *count,
                     uint64_t *starttime)
{
    const struct pt_taskrec_statm *polled = pt_taskiter_statm(it, tgid);
    if (polled) {
        if ((pid_t)polled->tgid != tgid || !polled->has_fds)
            return false;
        *starttime = pt_taskfold_ticks(polled->start_boottime, ticks_per_second);
        *count = (int64_t)polled->fds; /* at most PT_TASKREC_FD_WORDS x 64 */
        return true;
    }
    const struct pt_taskrec *leader = pt_taskiter_group(it, tgid);
    if (!leader || (pid_t)leader->tgid != tgid || !leader->group.has_fds)
        return false;
    *starttime = pt_taskfold_ticks(leader->start_boottime, ticks_per_second);
    *count = (int64_t)(leader->group.fds > PT_MAX_COUNT ? PT_MAX_COUNT : leader->group.fds);
    return true;
}

static uint64_t add(uint64_t a, uint64_t b)
{
    return a > PT_MAX_COUNT - b ? PT_MAX_COUNT : a + b;
}

bool pt_taskfold_group(const struct pt_taskiter *it, pid_t tgid, long ticks_per_second, long page_size,
                       struct pt_cputime *prev, struct pt_taskfold *out)
{
    const struct pt_taskrec *leader = pt_taskiter_group(it, tgid);
    if (!leader || (pid_t)leader->tgid != tgid)
        return false;
    memset(out, 0, sizeof(*out));
    const struct pt_taskrec_group *g = &leader->group;
    out->fds = g->has_fds ? (int64_t)(g->fds > PT_MAX_COUNT ? PT_MAX_COUNT : g->fds) : -1;
    uint64_t utime = g->utime, stime = g->stime, rtime = g->sum_sched_runtime;
    uint64_t minflt = count(g->min_flt), majflt = count(g->maj_flt);
    uint64_t io[PT_TR_IO_COUNT];
    for (int k = 0; k < PT_TR_IO_COUNT; k++)
        io[k] = count(g->io[k]);
    int64_t ns_per_tick = ticks_per_second > 0 ? 1000000000 / ticks_per_second : 1;
    for (const struct pt_taskrec *r = pt_taskiter_group_first(it, tgid); r; r = pt_taskiter_group_next(it, r)) {
        out->tasks++;
        utime += r->utime;
        stime += r->stime;
        rtime += r->sum_exec_runtime;
        minflt = add(minflt, r->min_flt);
        majflt = add(majflt, r->maj_flt);
        for (int k = 0; k < PT_TR_IO_COUNT; k++)
            io[k] = add(io[k], r->io[k]);
        out->tc[PT_TC_VOLUNTARY] = pt_sat_add(out->tc[PT_TC_VOLUNTARY], (int64_t)count(r->nvcsw));
        out->tc[PT_TC_INVOLUNTARY] = pt_sat_add(out->tc[PT_TC_INVOLUNTARY], (int64_t)count(r->nivcsw));
        out->tc[PT_TC_RUN_DELAY] = pt_sat_add(out->tc[PT_TC_RUN_DELAY], (int64_t)count(r->run_delay));
        /* stat's field 42 is in ticks: the per-thread sum is of ticks */
        int64_t blkio = (int64_t)count(pt_taskfold_ticks(r->blkio_delay, ticks_per_second));
        out->tc[PT_TC_BLKIO_DELAY] = pt_sat_add(out->tc[PT_TC_BLKIO_DELAY], pt_sat_mul(blkio, ns_per_tick));
    }
    /* The later of the kernel's last split (procfs's reads store it) and
     * ours: the kernel's answer now starts from its own, and ours never
     * goes back past what we showed. */
    if (g->prev_utime + g->prev_stime >= prev->utime + prev->stime) {
        prev->utime = g->prev_utime;
        prev->stime = g->prev_stime;
    }
    struct pt_cputime split = pt_taskfold_cputime(utime, stime, rtime, prev);

    struct pt_stat *st = &out->stat;
    st->pid = tgid;
    memcpy(st->comm, leader->comm, sizeof(leader->comm));
    st->comm[sizeof(leader->comm) - 1] = '\0';
    st->state = pt_taskfold_state_letter(leader->state, leader->exit_state);
    st->ppid = (pid_t)g->real_parent;
    st->flags = leader->flags;
    st->minflt = minflt;
    st->majflt = majflt;
    st->cminflt = count(g->cmin_flt);
    st->cmajflt = count(g->cmaj_flt);
    st->utime = count(pt_taskfold_ticks(split.utime, ticks_per_second));
    st->stime = count(pt_taskfold_ticks(split.stime, ticks_per_second));
    st->cutime = count(pt_taskfold_ticks(g->cutime, ticks_per_second));
    st->cstime = count(pt_taskfold_ticks(g->cstime, ticks_per_second));
    st->num_threads = g->nr_threads > PT_MAX_THREADS ? PT_MAX_THREADS : (int64_t)g->nr_threads;
    st->starttime = pt_taskfold_ticks(leader->start_boottime, ticks_per_second);
    uint64_t vm_pages = clamp_pages(g->mm.total_vm);
    st->vsize = vm_pages * (uint64_t)(page_size > 0 ? page_size : 4096);
    st->blkio_ticks = count(pt_taskfold_ticks(leader->blkio_delay, ticks_per_second));
    st->has_blkio = true;

    out->io = (struct pt_io){
        .rchar = io[PT_TR_RCHAR],
        .wchar = io[PT_TR_WCHAR],
        .syscr = io[PT_TR_SYSCR],
        .syscw = io[PT_TR_SYSCW],
        .read_bytes = io[PT_TR_READ_BYTES],
        .write_bytes = io[PT_TR_WRITE_BYTES],
        .cancelled_write_bytes = io[PT_TR_CANCELLED_WRITE_BYTES],
    };
    out->timeslices = leader->pcount;
    out->has_statm = statm_of(it, &g->mm, &out->statm);
    return true;
}
