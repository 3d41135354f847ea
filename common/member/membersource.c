#include "member/membersource.h"

#include <string.h>

#include "bpf/taskfold.h"
#include "member/member.h"
#include "member/memberthreads.h"

/* The member's fold from this pass's snapshot; false when there is none
 * to take (no iterator, no snapshot now, or none of its leader). */
static bool fold(struct pt_member *m, struct pt_membersource_units units, struct pt_taskfold *out)
{
    if (!m->taskiter || !pt_taskiter_valid(m->taskiter, PT_TR_MODE_FULL))
        return false;
    return pt_taskfold_group(m->taskiter, m->pid, units.ticks_per_second, units.page_size, &m->cpu_split, out);
}

enum pt_read pt_membersource_statm(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                   struct pt_membersource_units units, struct pt_statm *out, bool *served)
{
    /* a poll's snapshot holds the members' memory alone; the interval's
     * end's holds everything */
    uint64_t starttime = 0;
    int64_t fds = -1;
    struct pt_taskfold f;
    if (m->taskiter && pt_taskiter_valid(m->taskiter, PT_TR_MODE_STATM)) {
        *served = pt_taskfold_statm(m->taskiter, m->pid, units.ticks_per_second, out, &starttime, &fds);
    } else if ((*served = fold(m, units, &f) && f.has_statm)) {
        *out = f.statm;
        starttime = f.stat.starttime;
        fds = f.fds;
    }
    m->polled_fds = fds >= 0 && starttime == m->starttime ? fds : -1;
    *served = *served && starttime == m->starttime;
    if (!*served)
        return pt_member_read_statm(m, proc_root_fd, buf, out);
    return PT_READ_OK;
}

enum pt_read pt_membersource_children(struct pt_member *m, int proc_root_fd, struct pt_buf *buf,
                                      int (*fn)(pid_t pid, void *arg), void *arg, bool *no_children_files)
{
    /* a member the discovery's pass did not find there (joined since, or
     * reaped) has its files read: they say which */
    if (!m->taskiter || !pt_taskiter_alive(m->taskiter, m->pid))
        return pt_member_read_children(m, proc_root_fd, buf, fn, arg, no_children_files);
    *no_children_files = false;
    long cursor;
    for (pid_t child = pt_taskiter_child_first(m->taskiter, m->pid, &cursor); child > 0;
         child = pt_taskiter_child_next(m->taskiter, &cursor))
        if (fn(child, arg) != 0)
            break;
    return PT_READ_OK;
}

enum pt_read pt_membersource_counters(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, bool blkio,
                                      struct pt_membersource_units units, bool *served)
{
    struct pt_taskfold f;
    *served = fold(m, units, &f);
    if (!*served)
        return pt_member_read_counters(m, proc_root_fd, buf, blkio);
    enum pt_read r = pt_member_take_counters(m, &f.stat, &f.io, blkio);
    if (r != PT_READ_OK) {
        *served = false;
        return pt_member_read_counters(m, proc_root_fd, buf, blkio); /* its files say what became of it */
    }
    if (!m->io_vouched && !(m->denied & PT_DENIED_IO))
        r = pt_member_read_io(m, proc_root_fd, buf); /* after an exec its file decides again */
    return r;
}

enum pt_read pt_membersource_fds(struct pt_member *m, int proc_root_fd, struct pt_membersource_units units,
                                 int64_t *count)
{
    uint64_t starttime = 0;
    bool served = m->taskiter && m->fds_vouched && !(m->denied & PT_DENIED_FDS) &&
                  pt_taskiter_valid(m->taskiter, PT_TR_MODE_FULL) &&
                  pt_taskfold_fds(m->taskiter, m->pid, units.ticks_per_second, count, &starttime) &&
                  starttime == m->starttime;
    if (!served)
        return pt_member_count_fds(m, proc_root_fd, count);
    pt_member_drop_file(m, PT_MF_FD_DIR);
    return PT_READ_OK;
}

enum pt_read pt_membersource_tcounts(struct pt_member *m, int proc_root_fd, struct pt_buf *buf, unsigned want,
                                     struct pt_membersource_units units, int64_t now[PT_TC_COUNT], unsigned *got,
                                     bool *served)
{
    int64_t ns_per_tick = (int64_t)(1e9 / units.ticks_per_second + 0.5);
    struct pt_taskfold f;
    *served = fold(m, units, &f) && f.stat.starttime == m->starttime;
    if (!*served)
        return pt_member_read_tcounts(m, proc_root_fd, buf, want, ns_per_tick, now, got);
    m->main_usage.ctx_now = false;
    memcpy(now, f.tc, sizeof(f.tc));
    *got = want & PT_TC_ALL;
    return PT_READ_OK;
}
