/* exits: what the kernel's exit records (exitrecords.h) settle for a
 * target (docs/METRICS.md, "Accounting" and "Breakdown").
 *
 * A record is the tree's when its process is a member (live, or gone
 * since the last drain), a process forked in the tree that never joined
 * (gone before a poll could see it), or a child of a member. It brings:
 *   - the exited thread's context switches, which /proc forgets;
 *   - for a process's main thread, its exit status and peak RSS;
 *   - the thread's own usage: CPU, faults, I/O. The kernel folds a reaped
 *     process's usage into its reaper's counters, so the tree's total has
 *     it already; the breakdown moves it from the reaper's group to the
 *     process's own, keeping the groups' sum. A process the tree never
 *     saw that is reaped outside it (orphaned, then reaped by init) adds
 *     its usage to the tree, which would lose it otherwise.
 *
 * A member's own usage until its last read is in its group already; what
 * it did after (its last moments) is its records' sum less its own usage
 * at that read. The records' faults and I/O are exact and move as they
 * are. Their CPU is not: it is the scheduler tick's samples, which on a
 * busy host part from the run time by tens of percent. The exact figure
 * is in the reaper's stat, whose children's CPU grows by the run time of
 * each process it reaps: so a record's CPU only weighs its process's
 * share (struct pt_share) of that growth, given out once the reaper's
 * counters show it (the drain follows the polls, so they mostly do).
 * The last moments are taken only from members born in the tree while
 * records flowed (their records hold their whole life), and weigh no
 * more CPU than the time since the last read allowed. */
#include "tree/exits.h"

#include <stdio.h>
#include <string.h>

#include "util/bounds.h"
#include "netlink/eventbook.h"
#include "accounting/ledgerfolds.h"
#include "tree/membership.h"
#include "procfs/proctitle.h"
#include "member/memberthreads.h"
#include "util/saturate.h"
#include "accounting/interval.h"
#include "accounting/ledgerrecords.h"
#include "tree/exitsettle.h"

/* A record's usage as counters, CPU in microseconds. */
static void record_usage(const struct pt_exitrecord *r, int64_t v[PT_CTR_COUNT])
{
    v[PT_CTR_RCHAR] = r->rchar;
    v[PT_CTR_WCHAR] = r->wchar;
    v[PT_CTR_STORAGE_READ] = r->read_bytes;
    v[PT_CTR_STORAGE_WRITE] = r->write_bytes;
    v[PT_CTR_CANCELLED_WRITE] = r->cancelled_write_bytes;
    v[PT_CTR_SYSCR] = r->syscr;
    v[PT_CTR_SYSCW] = r->syscw;
    v[PT_REC_USER_US] = r->utime_us;
    v[PT_REC_SYSTEM_US] = r->stime_us;
    v[PT_CTR_MINFLT] = r->minflt;
    v[PT_CTR_MAJFLT] = r->majflt;
}

/* pid's parent at its fork if it is a process of the tree that never
 * joined (forked in it, gone first), else -1. */
static pid_t unseen_parent(const struct pt_target *t, pid_t pid)
{
    long p = pt_pidmap_get(&t->exits.parent_of_unseen_gone, pid);
    return (pid_t)(p >= 0 ? p : pt_pidmap_get(&t->events.parent_of_forked, pid));
}

/* ---- where a process's usage went -------------------------------------- */

enum fold { FOLD_MEMBER, FOLD_OUTSIDE, FOLD_UNKNOWN };

/* The counters the kernel folds a process's usage into when its parent
 * (parent, as the record says) reaps it: a live member's (*into), up
 * through parents that never joined (each folds it into its own parent).
 * Outside the tree when the chain leaves it (an orphan reaped by init).
 * Unknown when a departed member is on the way (whether its last read
 * held the usage cannot be told), or when we are the reaper (launch mode
 * joins and reads what it reaps, pt_target_final_read). */
static enum fold fold_target(const struct pt_target *t, pid_t parent, struct pt_member **into)
{
    for (int depth = 0; depth < PT_FOLD_DEPTH && parent > 0; depth++) {
        *into = pt_targetstate_live_member(t, parent);
        if (*into)
            return FOLD_MEMBER;
        if (pt_departures_of(&t->departures, parent) || parent == t->self)
            return FOLD_UNKNOWN;
        pid_t up = unseen_parent(t, parent);
        if (up < 0)
            return FOLD_OUTSIDE;
        parent = up;
    }
    return FOLD_UNKNOWN;
}

/* ---- CPU shared out from the reapers' folds ------------------------------ */

void pt_exits_note_exit(const struct pt_target *t, pid_t pid, double when)
{
    struct pt_member *m = pt_targetstate_live_member(t, pid);
    struct pt_departure *d = m ? NULL : pt_departures_of(&t->departures, pid);
    if (m)
        m->exited_at = when;
    else if (d)
        d->exited_at = when;
}

/* ---- departed members --------------------------------------------------- */

/* A record's per-thread counts (enum pt_tcount). */
static void record_tcounts(const struct pt_exitrecord *r, int64_t v[PT_TC_COUNT])
{
    v[PT_TC_VOLUNTARY] = r->nvcsw;
    v[PT_TC_INVOLUNTARY] = r->nivcsw;
    v[PT_TC_RUN_DELAY] = r->cpu_delay_ns;
    v[PT_TC_BLKIO_DELAY] = r->blkio_delay_ns;
}

/* The counts of a departed member's thread whose record came after it
 * left: what its last reads did not count. */
static void credit_late_tcounts(const struct pt_target *t, struct pt_ledger *ledger, struct pt_departure *d,
                                const struct pt_exitrecord *r)
{
    unsigned counted = d->tc_counted & pt_membership_tcounts_counted(t);
    if (!counted)
        return;
    int64_t v[PT_TC_COUNT], late[PT_TC_COUNT] = {0};
    record_tcounts(r, v);
    for (int k = 0; k < PT_TC_COUNT; k++) {
        if (!(counted & (1u << k)))
            continue;
        late[k] = v[k] > d->tc_base[k] ? v[k] - d->tc_base[k] : 0;
        d->tc_base[k] = pt_sat_sub(d->tc_base[k], pt_sat_sub(v[k], late[k]));
    }
    pt_ledgerrecords_credit_tcounts(ledger, pt_membership_group_of(t, ledger, d->group_name, d->reaper), late, counted);
}

/* ---- the breakdown by thread name --------------------------------------- */

/* Thread tid's usage as the reads of a departed member credited it. */
static struct pt_thread_usage *departed_thread_usage(struct pt_departure *d, pid_t tid)
{
    return tid == d->pid ? &d->main_usage : pt_threads_usage_of(&d->threads, tid);
}

/* A record's switches since its thread's last read (all of them when it
 * was never read and its past counts), never negative. */
static int64_t switches_since(int64_t final, int64_t last, bool had_last, bool count_past)
{
    int64_t d = had_last ? pt_sat_sub(final, last) : count_past ? final : 0;
    return d > 0 ? d : 0;
}

/* A thread exited: what it did since its last read goes to its name's
 * group, and nothing more after (its usage is final: a zombie's stat read
 * later shows the same end, truncated). Of a member (live or departed),
 * through the usage its reads kept: its CPU is what /proc would have shown
 * at its exit less what its last read showed, its record's exact run time
 * split as the kernel splits it (its samples alone part from the run time
 * by tens of percent on a busy host), so the thread lines add up to what
 * the tree counts of its threads. A thread none of whose reads was
 * credited counts whole when its process's threads do (born in the tree,
 * or read before), or when it started after the last read of the
 * threads (it exited after the last drain, so it started after that less
 * its life); of a process that never joined, all of it. */
static void thread_exited(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m,
                          struct pt_departure *d, const struct pt_exitrecord *r)
{
    if (t->options.breakdown != PT_BY_THREAD)
        return;
    struct pt_thread_usage fresh, *u = m   ? pt_member_thread_usage_of(m, r->pid)
                                       : d ? departed_thread_usage(d, r->pid)
                                           : NULL;
    bool count_past = m ? m->born || m->usage_sampled : d ? d->threads_count_past : true;
    if (u && u->final)
        u = NULL; /* settled: this is another thread that had its tid since */
    if (!u) {
        memset(&fresh, 0, sizeof(fresh));
        u = &fresh;
        count_past =
            count_past || t->exits.drained_at - (double)r->elapsed_us / PT_US_PER_SECOND > t->sampling.threads_read_at;
        if (!count_past)
            return;
    }
    memcpy(u->comm, r->comm, sizeof(u->comm));
    /* its CPU as its last read showed it (none: a thread whose past is
     * not the tree's credits nothing) and as its end shows it */
    double tick_us = PT_US_PER_SECOND / t->ticks_per_second;
    double before[PT_CPU_COUNT] = {0}, end[PT_CPU_COUNT];
    const double samples[PT_CPU_COUNT] = {[PT_CPU_USER] = (double)r->utime_us, [PT_CPU_SYSTEM] = (double)r->stime_us};
    if (u->cpu_last) {
        before[PT_CPU_USER] = (double)u->last_utime * tick_us;
        before[PT_CPU_SYSTEM] = (double)u->last_stime * tick_us;
    }
    memcpy(end, before, sizeof(end));
    if (u->cpu_last || count_past) {
        if (r->run_us >= 0)
            pt_ledgerrecords_split_run_time((double)r->run_us, samples[PT_CPU_USER], samples[PT_CPU_SYSTEM], end);
        else /* no run time in the record: its samples, never below the read */
            for (int c = 0; c < PT_CPU_COUNT; c++)
                end[c] = samples[c] > end[c] ? samples[c] : end[c];
    }
    int64_t cpu_us[PT_CPU_COUNT];
    for (int c = 0; c < PT_CPU_COUNT; c++)
        cpu_us[c] = end[c] > before[c] ? (int64_t)(end[c] - before[c] + 0.5) : 0;
    pt_ledgerrecords_credit_thread_exit(ledger, u->comm, cpu_us,
                                        switches_since(r->nvcsw, u->last_voluntary, u->ctx_last, count_past),
                                        switches_since(r->nivcsw, u->last_involuntary, u->ctx_last, count_past));
    u->final = true;
    u->cpu_now = u->ctx_now = false; /* its files are gone: the next read finds nothing */
}

/* ---- one record --------------------------------------------------------- */

/* A process's end, from its main thread's record. ac_exitcode is the
 * wait status: a signal in the low 7 bits, else the exit code above. */
static void note_process_exit(struct pt_target_exits *x, const struct pt_exitrecord *r)
{
    if (r->exitcode & 0x7f)
        x->killed++;
    else if ((r->exitcode >> 8) & 0xff)
        x->failed++;
    if (r->rss_peak_kb > x->rss_peak_kb)
        x->rss_peak_kb = r->rss_peak_kb;
}

/* The name of the group of a process the tree never saw, from its
 * thread's record: by process the thread's name (its process's is not in
 * the record); by title, its title never read, what ps shows of a process
 * without one, "[COMM]" (titlegroup.h's pattern applied). Into buf. */
static const char *unseen_group_name(const struct pt_target *t, const struct pt_exitrecord *r,
                                     char buf[PT_GROUP_NAME_MAX])
{
    if (t->options.breakdown != PT_BY_TITLE)
        return r->comm;
    char title[PT_COMM_MAX + 2];
    pt_proctitle_of_comm(title, sizeof(title), r->comm);
    pt_titlegroup_name(&t->titles, title, buf);
    return buf;
}

/* A thread of a process the tree never saw: its switches are the tree's
 * and its name's group's, and its usage its name's group's
 * (unseen_group_name). */
static void unseen_thread_exit(const struct pt_target *t, struct pt_ledger *ledger, const struct pt_exitrecord *r,
                               bool outside_known)
{
    char buf[PT_GROUP_NAME_MAX];
    const char *name = unseen_group_name(t, r, buf);
    int32_t group = pt_membership_group_of(t, ledger, name, r->ppid);
    int64_t counts[PT_TC_COUNT];
    record_tcounts(r, counts);
    pt_ledgerrecords_credit_tcounts(ledger, group, counts, pt_membership_tcounts_counted(t));
    thread_exited(t, ledger, NULL, NULL, r);
    int64_t v[PT_CTR_COUNT];
    record_usage(r, v);
    struct pt_member *into = NULL;
    enum fold f = fold_target(t, r->ppid, &into);
    if (f == FOLD_MEMBER && pt_target_by_member_name(t)) { /* by cgroup, the fold is its parent's group's already */
        pt_ledgerfolds_add_share(ledger, &into->acct, name, pt_sat_add(v[PT_REC_USER_US], v[PT_REC_SYSTEM_US]));
        pt_ledgerrecords_move(ledger, &into->acct, (uint32_t)group, v);
    } else if (f == FOLD_OUTSIDE && outside_known)
        pt_ledgerrecords_add_lost(ledger, group, v);
}

/* A record of a member's child that never joined (it lived less than a
 * poll): if the process is still there, a zombie its parent has not
 * reaped yet (or alive, for a thread's record), it joins now, so its CPU
 * counts in this interval from its own final counters, not in the
 * parent's at the reap, however late that comes (with a breakdown by
 * process or thread too: its records settle it as a member's, in its
 * name's group or its threads'). NULL when it is gone (reaped: its
 * parent's counters hold its usage) or another's. */
static struct pt_member *join_recorded(const struct pt_target *t, const struct pt_membership_parts *mp,
                                       const struct pt_exitrecord *r)
{
    if (!pt_targetstate_live_member(t, r->ppid) || pt_departures_of(&t->departures, r->tgid))
        return NULL;
    struct pt_stat st;
    if (pt_member_read_stat_by_pid(t->proc_root_fd, r->tgid, t->buf, &st) != PT_READ_OK || st.ppid != r->ppid ||
        (r->pid == r->tgid && st.state != 'Z'))
        return NULL; /* reaped, or a new process has the pid */
    return pt_membership_join_recorded(t, mp, r->tgid, st.starttime);
}

/* One record: is it the tree's, and what does it settle? */
static void follow_record(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp,
                          const struct pt_exitrecord *r)
{
    int64_t v[PT_CTR_COUNT];
    struct pt_member *m = pt_targetstate_live_member(t, r->tgid);
    if (!m)
        m = join_recorded(t, mp, r);
    struct pt_departure *d = m ? NULL : pt_departures_of(&t->departures, r->tgid);
    if (m || d) {
        record_usage(r, v);
        int64_t *recorded = m ? m->recorded : d->recorded;
        for (int k = 0; k < PT_CTR_COUNT; k++)
            recorded[k] = pt_sat_add(recorded[k], v[k]);
        int64_t *run = m ? &m->recorded_run_us : &d->recorded_run_us;
        *run = *run < 0 || r->run_us < 0 ? -1 : pt_sat_add(*run, r->run_us);
        if (m) { /* credited at its next read (pt_membership_credit_tcounts) */
            m->had_threads |= r->pid != r->tgid;
            int64_t counts[PT_TC_COUNT];
            record_tcounts(r, counts);
            for (int k = 0; k < PT_TC_COUNT; k++)
                m->tc_exited[k] = pt_sat_add(m->tc_exited[k], counts[k]);
            if (r->pid == r->tgid) { /* the name it ended with, for its group */
                memcpy(m->comm, r->comm, sizeof(m->comm));
                m->life_us = r->elapsed_us;
            }
            pt_membership_exact_cpu(t, mp->ledger, m); /* a zombie read already */
        } else {
            if (r->pid == r->tgid) {
                if (t->options.breakdown != PT_BY_TITLE) /* the name it ended with, for its last moments */
                    snprintf(d->group_name, sizeof(d->group_name), "%s", r->comm);
                d->life_us = r->elapsed_us;
            }
            credit_late_tcounts(t, mp->ledger, d, r);
        }
        thread_exited(t, mp->ledger, m, d, r);
    } else {
        /* forked in the tree: an orphan reaped outside leaves the tree;
         * else the child of a member (live, or gone since the last drain) */
        bool forked_here = unseen_parent(t, r->tgid) >= 0;
        if (!forked_here && !pt_targetstate_live_member(t, r->ppid) && !pt_departures_of(&t->departures, r->ppid))
            return;
        unseen_thread_exit(t, mp->ledger, r, forked_here);
    }
    x->records++;
    if (r->pid == r->tgid)
        note_process_exit(x, r);
}

void pt_exits_follow(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp,
                     const struct pt_exitrecord *records, size_t n, bool complete)
{
    double cpu0 = pt_thread_cpu_seconds();
    x->drained_at = pt_now();
    x->follows = true;
    pt_ledgerfolds_records_followed(mp->ledger, pt_target_by_member_name(t));
    if (!complete) { /* some member's records are missing: its sum is not its whole usage */
        x->record_losses++;
        for (size_t i = 0; i < t->membership.n_members; i++) {
            struct pt_member *m = &t->membership.members[i];
            m->recorded_whole = false;
            /* a child never seen whose record was lost folds into it unweighed */
            if (!m->gone && pt_target_by_member_name(t))
                pt_ledgerfolds_hold(mp->ledger, &m->acct);
        }
        for (size_t i = 0; i < t->departures.n; i++)
            t->departures.list[i].whole = false;
    }
    for (size_t i = 0; i < n; i++)
        follow_record(t, x, mp, &records[i]);
    pt_exitsettle_departures(t, mp);
    pt_pidmap_clear(&x->parent_of_unseen_gone);
    if (pt_target_groups_by_name(t)) /* their zombies joined from these records, or are reaped */
        pt_eventbook_unjoined_exits_settled(mp->events);
    if (t->options.breakdown == PT_BY_THREAD) /* the records of the threads the walks found ended are in */
        for (size_t i = 0; i < t->membership.n_members; i++)
            pt_member_threads_settled(&t->membership.members[i]);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "exit records");
}

void pt_exits_stop(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp)
{
    x->follows = false;
    pt_membership_departures_settled(mp);
    pt_pidmap_clear(&x->parent_of_unseen_gone);
    pt_ledgerfolds_records_stopped(mp->ledger);
    for (size_t i = 0; i < t->membership.n_members; i++) /* no record is to come: none has its whole usage */
        t->membership.members[i].recorded_whole = false;
}

void pt_exits_unseen_gone(struct pt_target_exits *x, pid_t pid, pid_t parent)
{
    if (x->follows)
        pt_pidmap_put(&x->parent_of_unseen_gone, pid, (uint32_t)parent);
}

void pt_exits_put(const struct pt_target_exits *x, struct pt_line *line)
{
    if (!x->follows)
        return;
    pt_lines_put(line, PT_A_EXIT_RECORDS, (double)x->records);
    pt_lines_put(line, PT_A_EXIT_RECORD_LOSSES, (double)x->record_losses);
    if (x->record_losses == 0) {
        pt_lines_put(line, PT_A_FAILED, (double)x->failed);
        pt_lines_put(line, PT_A_KILLED, (double)x->killed);
        pt_lines_put(line, PT_A_EXITED_RSS_PEAK, (double)x->rss_peak_kb * 1024.0);
    }
}

void pt_exits_end_interval(struct pt_target_exits *x)
{
    x->failed = x->killed = x->rss_peak_kb = x->records = x->record_losses = 0;
}

void pt_exits_free(struct pt_target_exits *x)
{
    pt_pidmap_free(&x->parent_of_unseen_gone);
}
