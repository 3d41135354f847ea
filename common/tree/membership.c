#include "tree/membership.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/eventbook.h"
#include "util/ratelimit.h"
#include "member/memberthreads.h"
#include "util/saturate.h"
#include "accounting/interval.h"
#include "tree/targetcg.h"
#include "member/membersource.h"
#include "procfs/proctitle.h"

const char *pt_membership_group_name(const struct pt_target *t, const struct pt_member *m)
{
    return t->options.breakdown == PT_BY_TITLE || t->options.breakdown == PT_BY_CGROUP ? m->title_group : m->comm;
}

/* A member whose name changed (exec; by title a new title) moves to its
 * new name's group with what it did since the last interval's end: at
 * that end, or when it leaves before it (then what it did under its new
 * name is not left in the old name's group). */
void pt_membership_follow_name(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m)
{
    if (pt_target_by_member_name(t))
        pt_ledger_renamed(ledger, &m->acct, pt_membership_group_name(t, m));
}

void pt_membership_read_title(const struct pt_target *t, struct pt_member *m)
{
    char text[PT_TITLE_READ_MAX + 1];
    size_t n;
    if (pt_member_read_cmdline(m, t->proc_root_fd, text, PT_TITLE_READ_MAX, &n) != PT_READ_OK ||
        pt_proctitle_from_cmdline(text, n) == 0) {
        if (m->title_group[0])
            return; /* its title as last read */
        pt_proctitle_of_comm(text, sizeof(text), m->comm);
    }
    pt_titlegroup_follow(&t->titles, text, m->title_group, &m->title_hash);
}

static void settle_children(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *parent);

/* Read m's counters, moving its io in or out of the tree's when the
 * permissions changed their answer. Its own faults that moved, or a new
 * name (an exec), or a read that could not tell, move the tree's
 * memory_gen: its PSS, and its sharers', may have moved (the PSS rule,
 * above PT_SMAPS_MAX_PERIOD). */
static struct pt_membersource_units source_units(const struct pt_target *t)
{
    return (struct pt_membersource_units){.ticks_per_second = t->ticks_per_second, .page_size = t->page_size};
}

static enum pt_read read_member_counters(const struct pt_target *t, const struct pt_membership_parts *mp,
                                         struct pt_member *m)
{
    bool had_io = m->acct.has_io, had_stat = m->acct.has_stat, served;
    int64_t minflt = m->acct.own[PT_CTR_MINFLT], majflt = m->acct.own[PT_CTR_MAJFLT];
    char comm[sizeof(m->comm)];
    memcpy(comm, m->comm, sizeof(comm)); /* a string: the bytes after its end are not its */
    enum pt_read r =
        pt_membersource_counters(m, t->proc_root_fd, t->buf, t->interval.blkio_read, source_units(t), &served);
    if (served)
        pt_interval_add_bpf_read(mp->interval);
    pt_ledger_io_changed(mp->ledger, &m->acct, had_io);
    if (r == PT_READ_GONE)
        return r; /* it leaves, which moves memory_gen */
    if (r != PT_READ_OK || !had_stat || m->acct.own[PT_CTR_MINFLT] != minflt || m->acct.own[PT_CTR_MAJFLT] != majflt ||
        strncmp(comm, m->comm, sizeof(comm)) != 0)
        pt_memberlist_moved(mp->list);
    return r;
}

unsigned pt_membership_tcounts_counted(const struct pt_target *t)
{
    return (t->options.collect_ctx_switches ? PT_TC_SWITCHES : 0u) | 1u << PT_TC_RUN_DELAY |
           (t->interval.blkio_read ? 1u << PT_TC_BLKIO_DELAY : 0u);
}

/* Each count of m since its last read, now that its live threads sum to
 * now: that sum, plus the final counts of the threads whose exit records
 * came since, less the last read's sum (which counted those threads up
 * to then). Never negative; a member born in the tree brings its whole
 * count, one joined as a root none before its first read. */
void pt_membership_credit_tcounts(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m,
                                  const int64_t now[PT_TC_COUNT], unsigned read)
{
    /* to the group of the name it has now, as its counters since the
     * interval's end go (a child that renames itself after its fork) */
    pt_membership_follow_name(t, ledger, m);
    unsigned counted = read & pt_membership_tcounts_counted(t);
    int64_t grown[PT_TC_COUNT] = {0};
    for (int k = 0; k < PT_TC_COUNT; k++) {
        unsigned bit = 1u << k;
        if (!(read & bit))
            continue;
        bool known = m->tc_known & bit;
        if ((counted & bit) && (known || m->born)) {
            int64_t total = pt_sat_add(now[k], m->tc_exited[k]), base = known ? m->tc[k] : 0;
            grown[k] = total > base ? total - base : 0;
        }
        m->tc[k] = now[k];
        m->tc_exited[k] = 0;
        m->tc_known |= bit;
    }
    if (counted)
        pt_ledger_credit_tcounts(ledger, m->acct.group, grown, counted);
}

/* CLOCK_BOOTTIME seconds as pt_now()'s clock (CLOCK_MONOTONIC): a
 * process's starttime is in the first, which also counts suspended time. */
static double monotonic_of_boot(double boot)
{
    return boot - (pt_boottime() - pt_now());
}

double pt_membership_start_time(const struct pt_target *t, uint64_t starttime)
{
    return monotonic_of_boot((double)starttime / t->ticks_per_second);
}

/* m has left, reaped by reaper (a live member) or outside the tree (NULL):
 * keep what settling it from its exit records needs (exits.c), its
 * threads' usage handed over. */
static void depart(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m,
                   const struct pt_member *reaper)
{
    struct pt_departure *d = pt_departures_add(mp->departures, m->pid);
    *d = (struct pt_departure){
        .pid = m->pid,
        .reaper = reaper ? reaper->pid : 0,
        .group = m->acct.group,
        .has_stat = m->acct.has_stat,
        .has_io = m->acct.has_io,
        .whole = m->recorded_whole,
        .read_at = m->read_at,
        .exited_at = m->exited_at,
        .start = m->started_at > 0 ? m->started_at : monotonic_of_boot((double)m->starttime / t->ticks_per_second),
        .life_us = m->life_us,
        .recorded_run_us = m->recorded_run_us,
        .tc_counted = pt_membership_tcounts_counted(t) & (m->born ? PT_TC_ALL : m->tc_known),
        .threads_count_past = m->born || m->usage_sampled,
    };
    pt_member_hand_thread_usage(m, &d->main_usage, &d->threads);
    snprintf(d->group_name, sizeof(d->group_name), "%s", pt_membership_group_name(t, m));
    memcpy(d->own, m->acct.own, sizeof(d->own));
    memcpy(d->recorded, m->recorded, sizeof(d->recorded));
    /* pt_membership_credit_tcounts credits the records come so far against
     * the last read; what of it they did not cover, later ones repeat */
    for (int k = 0; k < PT_TC_COUNT; k++)
        if (m->tc_known & (1u << k))
            d->tc_base[k] = m->tc[k] > m->tc_exited[k] ? m->tc[k] - m->tc_exited[k] : 0;
    pt_interval_add_departure(mp->interval, m->starttime);
}

/* The member is gone, reaped by reaper (a member: its counters carry, or
 * will carry, m's whole usage) or by someone outside the tree (NULL: m's
 * last values move into adjust, so what it did stays counted). Its member
 * children are settled first, since m's own counters took the ones it
 * reaped. */
static void member_left(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m,
                        struct pt_member *reaper)
{
    if (m->gone)
        return;
    pt_membership_follow_name(t, mp->ledger, m);
    pt_ledger_seen(mp->ledger, &m->acct);
    m->gone = true;
    pt_memberlist_left(mp->list);
    if (t->exits.follows)
        depart(t, mp, m, reaper); /* before its threads' usage goes with its files */
    pt_member_close(m);
    if (!m->exit_counted)
        pt_interval_add_exited(mp->interval);
    pt_eventbook_member_moved(mp->events, m->pid, true); /* its forks may still be in the socket */
    if (t->exits.follows) {
        static const int64_t none[PT_TC_COUNT];
        pt_membership_credit_tcounts(t, mp->ledger, m, none, PT_TC_ALL); /* its live threads now are none */
    }
    settle_children(t, mp, m);
    pt_ledger_leave(mp->ledger, &m->acct, reaper ? &reaper->acct : NULL);
}

void pt_membership_member_changed(const struct pt_target *t, const struct pt_membership_parts *mp, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(t, pid);
    if (!m)
        return;
    pt_member_reopen(m);           /* a new program's memory */
    pt_memberlist_moved(mp->list); /* the old one's pages, shared by fewer */
    if (t->options.breakdown == PT_BY_TITLE)
        pt_membership_read_title(t, m); /* a new program's title, should it leave before the end */
}

/* Gone, as seen by a read in tree order (parents before children): if the
 * parent is a member still there, it reaped this one. */
void pt_membership_member_gone(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m)
{
    member_left(t, mp, m, pt_target_live_member(t, m->ppid));
}

/* A member that exited took with it the usage of every child it reaped:
 * its counters are final (a zombie) or no longer ours to read (gone). Its
 * children still alive were re-parented when it exited. So its member
 * children are settled before anything else reads them: the gone ones
 * were reaped by it (it owes them: adding their last values to adjust as
 * well would count them twice, as make -> sh -> cc would show), the
 * others get their new parent and become exposed. A child that was
 * re-parented and then reaped by init before this check is taken as
 * reaped by it too; the debt check then finds that it never arrived. */
static void settle_children(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *parent)
{
    parent->children_settled = true;
    pid_t pid = parent->pid;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone || m->ppid != pid || m == parent)
            continue;
        if (read_member_counters(t, mp, m) == PT_READ_GONE)
            member_left(t, mp, m, parent);
        else if (m->zombie && !m->children_settled)
            settle_children(t, mp, m);
    }
}

/* Refresh a member's counters, and settle what the read tells. */
void pt_membership_read_counters(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m)
{
    enum pt_read r = read_member_counters(t, mp, m);
    if (r == PT_READ_GONE) {
        pt_membership_member_gone(t, mp, m);
        return;
    }
    if (r == PT_READ_NO_FDS)
        pt_interval_add_short(mp->interval, PT_SHORT_COUNTERS);
    if (r != PT_READ_OK) {
        pt_interval_add_vanished(mp->interval);
        return;
    }
    pt_target_warn_denied(t, mp->warned_denied, m); /* io may refuse its first read, not its open */
    m->read_at = pt_now();
    pt_ledger_read(mp->ledger, &m->acct);
    if (m->zombie && !m->children_settled)
        settle_children(t, mp, m);
    pt_ledger_settle(mp->ledger, &m->acct, m->zombie);
    pt_membership_exact_cpu(t, mp->ledger, m);
}

/* Its records are whole when it was born in the tree while they flowed,
 * none lost since, and its main thread's came (life_us): for a process
 * that never had other threads, that one is its whole life (with
 * threads, their records' order does not say when all are in). Its stat
 * is final once it has exited (a zombie's). */
void pt_membership_exact_cpu(const struct pt_target *t, struct pt_ledger *ledger, struct pt_member *m)
{
    if (m->gone || !m->zombie || !m->recorded_whole || m->had_threads || m->life_us <= 0 || m->recorded_run_us <= 0 ||
        m->acct.has_exact)
        return;
    double shown[PT_CPU_COUNT];
    for (int c = 0; c < PT_CPU_COUNT; c++)
        shown[c] = (double)m->acct.own[pt_ctr_of_cpu((enum pt_cpu)c)] * PT_US_PER_SECOND / t->ticks_per_second;
    pt_split_run_time((double)m->recorded_run_us, (double)m->recorded[PT_CTR_USER_TICKS],
                      (double)m->recorded[PT_CTR_SYSTEM_TICKS], shown);
    pt_ledger_exact_cpu(ledger, &m->acct, shown);
}

void pt_membership_leave_all(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        pt_membership_read_counters(t, mp, m); /* its last values: may find it gone */
        m->recorded_whole = false;             /* what it does from now on is not the tree's */
        member_left(t, mp, m, NULL);
        pt_eventbook_member_moved(mp->events, m->pid, false);
    }
    pt_membership_compact(mp);
}

void pt_membership_compact(const struct pt_membership_parts *mp)
{
    pt_memberlist_compact(mp->list);
}

void pt_membership_departures_settled(const struct pt_membership_parts *mp)
{
    pt_departures_clear(mp->departures);
}

void pt_membership_free(const struct pt_membership_parts *mp)
{
    pt_memberlist_free(mp->list);
    pt_departures_free(mp->departures);
}

int32_t pt_membership_group_of(const struct pt_target *t, struct pt_ledger *ledger, const char *name, pid_t parent)
{
    if (pt_target_by_member_name(t))
        return (int32_t)pt_ledger_group_named(ledger, name);
    if (t->options.breakdown != PT_BY_CGROUP)
        return -1;
    const struct pt_member *p = pt_target_live_member(t, parent);
    return p && p->acct.group >= 0 ? p->acct.group : (int32_t)pt_ledger_group_named(ledger, PT_CGROUP_OWN);
}

/* The group a member joins: by cgroup the one the scan of the cgroups
 * found it in, else as any process's (pt_membership_group_of). */
static int32_t join_group(const struct pt_target *t, struct pt_ledger *ledger, const struct pt_member *m)
{
    if (t->options.breakdown == PT_BY_CGROUP && t->discovery.join_group)
        return (int32_t)pt_ledger_group_named(ledger, t->discovery.join_group);
    return pt_membership_group_of(t, ledger, pt_membership_group_name(t, m), m->ppid);
}

/* --by cgroup: the name of the group m joins (join_group), kept with it
 * for the ranking (rank.h), which must find the name of a member in
 * "other" again: the cgroup the scan found it in, else its parent's, else
 * the target's own. */
static void cgroup_name(const struct pt_target *t, struct pt_member *m)
{
    const struct pt_member *p = t->discovery.join_group ? NULL : pt_target_live_member(t, m->ppid);
    const char *name = t->discovery.join_group  ? t->discovery.join_group
                       : p && p->title_group[0] ? p->title_group
                                                : PT_CGROUP_OWN;
    snprintf(m->title_group, sizeof(m->title_group), "%s", name);
}

/* Open pid as a new member. baseline: it joins as part of a new root's
 * tree (its past is not counted); otherwise it was born in the tree.
 * recorded: pid's exit record is being followed (exits.c), which settles
 * it as a member's, so a zombie joins even with a breakdown. */
static struct pt_member *join(const struct pt_target *t, const struct pt_membership_parts *mp, pid_t pid,
                              uint64_t expected_starttime, bool baseline, bool recorded)
{
    struct pt_member m;
    enum pt_read r = pt_member_open(&m, t->proc_root_fd, t->budget, pid, expected_starttime, t->buf);
    if (r == PT_READ_NO_FDS) {
        /* The process is tried again at the next discovery tick; until it
         * has joined, every sum of the tree would be partial. */
        pt_interval_add_vanished(mp->interval);
        pt_interval_add_short(mp->interval, PT_SHORT_MEMBERS);
    }
    if (r != PT_READ_OK)
        return NULL;
    if (m.zombie && !baseline && !recorded && t->exits.follows && pt_target_groups_by_name(t) && m.ppid != t->self) {
        /* With a breakdown its exit record, once followed while it could
         * not join, gave its group its usage (exits.c): joined too, its
         * group would count it twice. Launch mode joins what it reaps
         * itself. */
        pt_member_close(&m);
        return NULL;
    }
    if (m.kernel_thread && t->has_matcher) {
        /* Kernel threads hold no user memory and would add the kernel's
         * own work to "root's programs": only --pid may name one. */
        pt_member_close(&m);
        return NULL;
    }
    pt_target_warn_denied(t, mp->warned_denied, &m);
    m.baseline_walk = baseline;
    m.born = !baseline;
    m.since = baseline ? pt_now() : 0;
    m.recorded_whole = !baseline && t->exits.follows;
    m.read_at = pt_now();
    if (t->options.breakdown == PT_BY_TITLE)
        pt_membership_read_title(t, &m);
    if (t->options.breakdown == PT_BY_CGROUP)
        cgroup_name(t, &m);
    pt_ledger_join(mp->ledger, &m.acct, join_group(t, mp->ledger, &m), baseline);
    /* A zombie joins too (but for a breakdown's, above): its counters are
     * final, and count in the interval it ran in, not in its reaper's at
     * the reap (which then owes them, as for any member that leaves). One
     * the events counted already (started, and exited) is not counted
     * again. */
    m.exit_counted = pt_eventbook_joins_exited(mp->events, pid);
    if (!baseline && !pt_eventbook_joins_forked(mp->events, pid) &&
        !m.exit_counted) /* else counted at its fork event */
        pt_interval_add_started(mp->interval);
    pt_eventbook_member_moved(mp->events, pid, !baseline);
    struct pt_member *added = pt_memberlist_add(mp->list, &m);
    pt_member_follow(added, t->taskiter);
    return added;
}

struct pt_member *pt_membership_join(const struct pt_target *t, const struct pt_membership_parts *mp, pid_t pid,
                                     uint64_t expected_starttime, bool baseline)
{
    return join(t, mp, pid, expected_starttime, baseline, false);
}

struct pt_member *pt_membership_join_recorded(const struct pt_target *t, const struct pt_membership_parts *mp,
                                              pid_t pid, uint64_t starttime)
{
    return join(t, mp, pid, starttime, false, true);
}

/* One reading of a thread's counter against the last: what it did since,
 * never negative; a thread first seen counts its whole past when it was
 * born in the tree (count_past), none of it otherwise. */
static int64_t since_last(int64_t now, int64_t *last, bool had_last, bool count_past)
{
    int64_t d = had_last ? pt_sat_sub(now, *last) : count_past ? now : 0;
    *last = now;
    return d > 0 ? d : 0;
}

/* A thread's usage since the last interval's end, to its name's group;
 * none once its exit record settled it (exits.c). */
void pt_membership_credit_thread(struct pt_ledger *ledger, struct pt_thread_usage *u, bool count_past)
{
    if (!u->cpu_now || u->final)
        return;
    int64_t user = since_last(u->utime, &u->last_utime, u->cpu_last, count_past);
    int64_t system = since_last(u->stime, &u->last_stime, u->cpu_last, count_past);
    u->cpu_last = true;
    int64_t voluntary = 0, involuntary = 0;
    if (u->ctx_now) {
        voluntary = since_last(u->voluntary, &u->last_voluntary, u->ctx_last, count_past);
        involuntary = since_last(u->involuntary, &u->last_involuntary, u->ctx_last, count_past);
        u->ctx_last = true;
    }
    pt_ledger_credit_thread(ledger, u->comm, user, system, u->ctx_now, voluntary, involuntary);
}

/* ---- the reads of each cadence ---- */

/* Nobody in the tree will absorb this member's usage when it dies: its
 * parent is outside the tree (the root; an orphan re-parented to init or
 * to us). Such members are read at every poll so their last values stay
 * fresh. */
static bool is_exposed(const struct pt_target *t, const struct pt_member *m)
{
    return pt_target_live_member(t, m->ppid) == NULL;
}

/* Pages to bytes, saturating (statm is clamped to PT_MAX_PAGES, but the
 * page size is the machine's). */
static int64_t page_bytes(const struct pt_target *t, uint64_t pages)
{
    uint64_t page = (uint64_t)t->page_size;
    return pages > (uint64_t)INT64_MAX / page ? INT64_MAX : (int64_t)(pages * page);
}

/* m's statm as a poll read it (NULL: the read could not tell): one that
 * moved since the last poll, or one not known, moves the tree's
 * memory_gen (the PSS rule, above PT_SMAPS_MAX_PERIOD). */
static void note_statm(const struct pt_membership_parts *mp, struct pt_member *m, const struct pt_statm *sm)
{
    if (!sm || !m->has_statm || sm->size != m->statm.size || sm->resident != m->statm.resident ||
        sm->shared != m->statm.shared)
        pt_memberlist_moved(mp->list);
    m->has_statm = sm != NULL;
    if (sm)
        m->statm = *sm;
}

static void poll_members(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    int64_t sum[PT_G_COUNT] = {0}; /* bytes */
    bool sampled = false;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        struct pt_statm sm;
        bool served;
        enum pt_read r = pt_membersource_statm(m, t->proc_root_fd, t->buf, source_units(t), &sm, &served);
        if (r != PT_READ_GONE)
            note_statm(mp, m, r == PT_READ_OK ? &sm : NULL);
        if (r == PT_READ_OK) {
            int64_t now[PT_G_ANON + 1] = {
                [PT_G_VM] = page_bytes(t, sm.size),
                [PT_G_RSS] = page_bytes(t, sm.resident),
                /* shared can exceed resident for an instant while pages move */
                [PT_G_ANON] = page_bytes(t, sm.resident > sm.shared ? sm.resident - sm.shared : 0),
            };
            for (int g = PT_G_VM; g <= PT_G_ANON; g++)
                sum[g] = pt_sat_add(sum[g], now[g]);
            pt_ledger_poll_gauges(mp->ledger, &m->acct, now, PT_G_VM, PT_G_ANON);
            sampled = true;
        } else if (r == PT_READ_GONE) {
            pt_membership_member_gone(t, mp, m);
            continue;
        } else {
            if (r == PT_READ_NO_FDS)
                pt_interval_add_short(mp->interval, PT_SHORT_STATM);
            pt_interval_add_vanished(mp->interval);
        }
        /* With a breakdown every member is read: what a child does after
         * its last read counts in its reaper's group */
        if (is_exposed(t, m) || pt_target_partitions(t))
            pt_membership_read_counters(t, mp, m);
    }
    if (sampled) {
        pt_interval_add_gauges(mp->interval, sum, PT_G_VM, PT_G_ANON);
        pt_interval_add_sample(mp->interval);
        pt_ledger_end_poll(mp->ledger, PT_G_VM, PT_G_ANON);
    }
}

/* A snapshot of the task iterator for one pass of reads (a poll, the
 * interval's end), forgotten at its end (taskiter.h): one moment for
 * every member, at what the members cost. A failed pass leaves the reads
 * to the files. */
void pt_membership_snapshot(const struct pt_target *t, enum pt_taskrec_mode mode)
{
    if (t->taskiter)
        pt_taskiter_snapshot(t->taskiter, mode);
}

void pt_membership_forget_snapshot(const struct pt_target *t)
{
    if (t->taskiter)
        pt_taskiter_forget(t->taskiter);
}

/* A walk visits every task of the host; a statm read through a kept
 * descriptor (a children file's the same) costs about as much as
 * PT_STATM_VISITS of those visits (measured on a 2-CPU host: 1.6 us a
 * pread, 0.4 us a visit). So a discovery's walk (a poll's, where polls
 * cannot go by the list) pays where the members outnumber the host's
 * tasks over that: a 100-process tree on a host of 1,100 tasks reads its
 * children files, a 1,000-process one (2,100 tasks) the iterator. Either
 * gives the same numbers. */
#define PT_STATM_VISITS 4

bool pt_membership_pass_pays(const struct pt_target *t)
{
    if (!t->taskiter)
        return false;
    return (uint64_t)pt_target_live_members(t) * PT_STATM_VISITS >= pt_taskiter_visits(t->taskiter);
}

/* A poll by the list costs a lookup a member (about a tenth of its statm
 * pread here) and one read of the iterator per PT_TASKREC_STATM_CHUNK
 * members: it always pays. */
static bool poll_pass_pays(const struct pt_target *t)
{
    return t->taskiter && (pt_taskiter_polls_by_list(t->taskiter) || pt_membership_pass_pays(t));
}

void pt_membership_poll(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_cgroups *cg)
{
    double cpu0 = pt_thread_cpu_seconds();
    /* a breakdown reads every member's counters at a poll: the whole
     * snapshot then; else the members' memory alone, where a pass costs
     * less than their statm files */
    bool every_member = pt_target_partitions(t);
    if (every_member || poll_pass_pays(t))
        pt_membership_snapshot(t, every_member ? PT_TR_MODE_FULL : PT_TR_MODE_STATM);
    poll_members(t, mp);
    pt_membership_forget_snapshot(t);
    pt_targetcg_poll(t, cg);
    pt_membership_compact(mp);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_target_debug_check(t, "a poll");
}

/* Counters of every member, parents first (see the header); the live
 * members' threads. */
static int64_t read_all_counters(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    int64_t threads = 0;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        pt_membership_read_counters(t, mp, m);
        if (!m->gone)
            threads = pt_sat_add(threads, m->num_threads);
    }
    return threads;
}

/* smaps_rollup is the dearest file by far (it walks the process's page
 * tables), so a member's is read at a PSS sample only when its PSS can
 * have moved since its last read, and its last values stand in otherwise,
 * counted in the sums as a fresh read's would be. It is read when:
 *
 *  1. it has no last values: it just joined, its last read failed, or it
 *     exec'd or changed its credentials (pt_member_reopen: a new memory
 *     map, maybe other permissions);
 *  2. its own memory moved since that read: its statm (size, resident,
 *     shared, as the polls read it) or its own faults (minflt, majflt,
 *     from stat). A write to a page it shares since a fork moves no statm
 *     count (the page stays mapped and resident) but costs a fault;
 *  3. anything in its tree moved since that read: a member joined (a fork
 *     shares all of the parent's pages: the parent's PSS halves with its
 *     own counters still), left or exited (what it shared is shared by
 *     fewer: the survivors' PSS rises), exec'd or was renamed (its old
 *     memory let go), or ANY member's statm or faults moved: a child's
 *     copy on write gives it a page of its own and the page it copied
 *     becomes wholly the parent's, whose PSS rises with none of its own
 *     counters moving. Telling which members share which pages would cost
 *     what the read costs, so the tree moves as one: the member list's
 *     memory_gen moves at each of these (the polls, the counter reads,
 *     joins, departures and exec events tell it), and a member remembers
 *     the one its last read was made at. 2 is a case of 3. The counters
 *     are compared as read before the smaps_rollup read (a movement during
 *     it shows at the next read of the counters, so at the next sample);
 *     on its own cadence (--pss-interval) a sample that would carry
 *     anything first reads every member's counters, whose faults the polls
 *     read only for the exposed members;
 *  4. at least at every Nth sample (--pss-every / PssEvery, default 6; 1:
 *     every sample): at the samples where (the target's sample count +
 *     pid) % N is 0, so the members of a still tree are read in turn, not
 *     all at once. This bounds what no counter of the tree shows: a
 *     process outside the tree mapping, touching or letting go of the same
 *     file or shared memory, KSM merging pages, a write through
 *     get_user_pages (an O_DIRECT read into a page shared since a fork),
 *     which counts in no process's faults. Such a movement shows at most N
 *     samples after the last read (docs/METRICS.md, PSS).
 *
 * Values carried by this rule are not stale (the rule says they cannot
 * have moved, but for 4's bound): collector_pss_stale does not count them.
 *
 * --pss-budget / PssBudget (off by default) composes with it: a member
 * whose read takes longer than the budget (a large process, which the walk
 * holds up) waits every 2nd, 4th, ... sample (up to every 64th) before it
 * is read again when the rule asks, its last values standing in meanwhile;
 * a sample where it waits while the rule would read it counts in
 * pss_stale. A fast read brings it back to every sample. Saying so is
 * rate-limited to once in 10 minutes per target: a member can go slow and
 * fast again many times. */
#define PT_SMAPS_MAX_PERIOD 64

/* Does the rule above read m at the sample numbered sample? */
static bool smaps_may_have_moved(const struct pt_target *t, const struct pt_member *m, uint64_t sample)
{
    if (!m->has_smaps || m->smaps_gen != t->membership.memory_gen)
        return true;
    uint64_t every = t->options.pss_every > 0 ? t->options.pss_every : 1;
    return (sample + (uint64_t)(uint32_t)m->pid) % every == 0;
}

/* Does --pss-budget keep a slow member waiting at this sample? */
static bool smaps_waits(struct pt_member *m)
{
    if (m->smaps_wait > 0) {
        m->smaps_wait--;
        return true;
    }
    return false;
}

static void smaps_timed(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_sampling *s,
                        struct pt_member *m, uint64_t gen)
{
    double start = pt_now();
    struct pt_smaps_rollup sr;
    enum pt_read r = pt_member_read_smaps(m, t->proc_root_fd, t->buf, &sr);
    if (r == PT_READ_NO_FDS)
        pt_interval_add_short(mp->interval, PT_SHORT_SMAPS);
    if (r == PT_READ_FAILED)
        m->has_smaps = false; /* denied, or no memory: its last values are not its memory now */
    if (r != PT_READ_OK)
        return;
    double took = pt_now() - start;
    m->smaps = sr;
    m->has_smaps = true;
    m->smaps_gen = gen;
    if (t->options.pss_budget <= 0 || took <= t->options.pss_budget) {
        m->smaps_period = 1;
        return;
    }
    uint32_t before = m->smaps_period ? m->smaps_period : 1;
    m->smaps_period = before * 2 > PT_SMAPS_MAX_PERIOD ? PT_SMAPS_MAX_PERIOD : before * 2;
    m->smaps_wait = m->smaps_period - 1;
    char more[96];
    if (before == 1 &&
        pt_ratelimit_say(&s->smaps_slow_said, pt_now(), "times, other pids or again,", more, sizeof(more))) {
        pt_target_logf(t, PT_LOG_INFO, "smaps_rollup of pid %d took %.1f ms; reading it less often%s", (int)m->pid,
                       took * 1e3, more);
    }
}

static void sample_smaps(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_sampling *s)
{
    int64_t sum[PT_G_COUNT] = {0};
    bool sampled = false;
    uint64_t sample = s->pss_samples++;
    uint64_t gen = t->membership.memory_gen; /* nothing below moves it */
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        bool moved = smaps_may_have_moved(t, m, sample);
        if (smaps_waits(m)) {
            if (moved && m->has_smaps)
                pt_interval_add_pss_stale(mp->interval);
        } else if (moved) {
            smaps_timed(t, mp, s, m, gen);
            pt_target_warn_denied(t, mp->warned_denied, m);
        }
        if (!m->has_smaps)
            continue;
        const struct pt_smaps_rollup sr = m->smaps;
        /* each value is at most PT_MAX_BYTES, so the casts are exact */
        int64_t now[PT_G_COUNT] = {
            [PT_G_PSS] = (int64_t)sr.pss,
            [PT_G_SHARED] = (int64_t)(sr.shared_clean + sr.shared_dirty),
            [PT_G_USS] = (int64_t)(sr.private_clean + sr.private_dirty),
            [PT_G_SWAP] = (int64_t)sr.swap,
        };
        for (int g = PT_G_PSS; g <= PT_G_SWAP; g++)
            sum[g] = pt_sat_add(sum[g], now[g]);
        pt_ledger_poll_gauges(mp->ledger, &m->acct, now, PT_G_PSS, PT_G_SWAP);
        sampled = true;
    }
    if (!sampled)
        return;
    pt_interval_add_gauges(mp->interval, sum, PT_G_PSS, PT_G_SWAP);
    pt_ledger_end_poll(mp->ledger, PT_G_PSS, PT_G_SWAP);
}

/* A sample on its own cadence comes between the interval's ends, whose
 * reads bring every member's faults: the polls read them only for the
 * exposed members (all with a breakdown). When the rule would carry a
 * member's values, every member's counters are read first, so that a
 * copy on write since the last end is not missed. */
static void read_counters_for_pss(const struct pt_target *t, const struct pt_membership_parts *mp,
                                  const struct pt_target_sampling *s)
{
    bool carries = false;
    for (size_t i = 0; i < t->membership.n_members && !carries; i++) {
        const struct pt_member *m = &t->membership.members[i];
        carries = !m->gone && !smaps_may_have_moved(t, m, s->pss_samples);
    }
    if (!carries)
        return;
    for (size_t i = 0; i < t->membership.n_members; i++)
        if (!t->membership.members[i].gone)
            pt_membership_read_counters(t, mp, &t->membership.members[i]);
}

void pt_membership_sample_pss(const struct pt_target *t, const struct pt_membership_parts *mp,
                              struct pt_target_sampling *s)
{
    if (!t->options.collect_pss)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    pt_membership_snapshot(t, PT_TR_MODE_FULL); /* the counters the rule asks for, in one pass */
    read_counters_for_pss(t, mp, s);
    pt_membership_forget_snapshot(t);
    sample_smaps(t, mp, s);
    pt_membership_compact(mp);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_target_debug_check(t, "a PSS sample");
}

/* Context switches and delays are not inclusive counters: a thread's
 * vanish with it, unless its exit record keeps them
 * (pt_membership_credit_tcounts). Each member contributes what its threads
 * did since its last read. */
static void sample_tcounts(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    static const int64_t none[PT_TC_COUNT];
    unsigned want = pt_membership_tcounts_counted(t);
    int64_t ns_per_tick = (int64_t)(1e9 / t->ticks_per_second + 0.5);
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        if (m->zombie && t->exits.follows) {
            /* Its threads have exited (all but in the rare zombie leader
             * of live threads): their records hold their counts, and its
             * files would count the leader's a second time. */
            pt_membership_credit_tcounts(t, mp->ledger, m, none, want);
            continue;
        }
        int64_t now[PT_TC_COUNT];
        unsigned got;
        bool served = false;
        /* the thread breakdown reads each thread's files anyway */
        enum pt_read r =
            t->options.breakdown == PT_BY_THREAD
                ? pt_member_read_tcounts(m, t->proc_root_fd, t->buf, want, ns_per_tick, now, &got)
                : pt_membersource_tcounts(m, t->proc_root_fd, t->buf, want, source_units(t), now, &got, &served);
        if (r == PT_READ_NO_FDS)
            pt_interval_add_short(mp->interval, PT_SHORT_CTX);
        if (r == PT_READ_OK)
            pt_membership_credit_tcounts(t, mp->ledger, m, now, got);
    }
}

/* A member's open descriptors against its soft limit of them, read when
 * due (pt_member_read_fd_limit): the tree's worst ratio and least
 * headroom. A member whose limit is unlimited or unreadable is left out. */
static void count_fd_limit(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_member *m,
                           int64_t open, double now)
{
    if (pt_member_read_fd_limit(m, t->proc_root_fd, t->buf, now) != PT_READ_OK || !m->has_fd_limit)
        return;
    int64_t limit = (int64_t)m->fd_limit; /* at most PT_MAX_COUNT */
    double percent = limit > 0 ? 100.0 * (double)open / (double)limit : 100.0;
    pt_interval_add_fd_limit(mp->interval, percent, limit > open ? limit - open : 0);
}

/* Open descriptors of the live members; -1 when none could be counted. */
static int64_t count_fds(const struct pt_target *t, const struct pt_membership_parts *mp, double now)
{
    int64_t total = 0;
    bool any = false;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        int64_t n;
        if (t->membership.members[i].gone)
            continue;
        enum pt_read r = pt_membersource_fds(&t->membership.members[i], t->proc_root_fd, source_units(t), &n);
        if (r == PT_READ_OK) {
            total = pt_sat_add(total, n);
            any = true;
            count_fd_limit(t, mp, &t->membership.members[i], n, now);
            pt_ledger_fds(mp->ledger, &t->membership.members[i].acct, n);
        } else if (r == PT_READ_NO_FDS) {
            pt_interval_add_short(mp->interval, PT_SHORT_FDS);
        }
        pt_target_warn_denied(t, mp->warned_denied, &t->membership.members[i]);
    }
    return any ? total : -1;
}

/* The breakdown by thread name: every live member's threads, read now,
 * credited by name. A thread that exits between two reads loses what it
 * did since the first (docs/METRICS.md, "Breakdown"), unless its exit
 * record credits it (exits.c). */
void pt_membership_read_threads(const struct pt_target *t, const struct pt_membership_parts *mp,
                                struct pt_target_sampling *s)
{
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        enum pt_read r = pt_member_read_thread_usage(m, t->proc_root_fd, t->buf);
        if (r == PT_READ_NO_FDS)
            pt_interval_add_short(mp->interval, PT_SHORT_COUNTERS);
        if (r != PT_READ_OK && r != PT_READ_NO_FDS)
            continue;
        uint32_t n;
        pt_member_thread_usage(m, 0, &n);
        for (uint32_t k = 0; k < n; k++)
            pt_membership_credit_thread(mp->ledger, pt_member_thread_usage(m, k, &n), m->born || m->usage_sampled);
        m->usage_sampled = true;
        if (!t->exits.follows) /* no record will settle the threads that ended */
            pt_member_threads_settled(m);
    }
    s->threads_read_at = pt_now(); /* after: a thread born since was not read */
}

/* Denied files are tried again at this many interval ends: a process
 * may change its credentials without the process events telling (none
 * followed), and then the files it denied answer. */
#define PT_DENIED_RETRY_ROUNDS 30

static void retry_denied(const struct pt_target *t)
{
    if (t->ledger.round % PT_DENIED_RETRY_ROUNDS != 0)
        return;
    for (size_t i = 0; i < t->membership.n_members; i++)
        pt_member_forget_denials(&t->membership.members[i]);
}

/* Did every process of the interval start after since (pt_now's clock)?
 * Its live members now, and those that left since the last end: the
 * earliest of their starttimes decides. */
static bool all_started_after(const struct pt_target *t, double since)
{
    bool any = t->interval.departed_any;
    uint64_t first = t->interval.departed_first_starttime;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        const struct pt_member *m = &t->membership.members[i];
        if (!m->gone && (!any || m->starttime < first)) {
            first = m->starttime;
            any = true;
        }
    }
    return !any || pt_membership_start_time(t, first) > since;
}

/* --by title: every live member's title read again (titles change without
 * an exec: a PostgreSQL backend's says what it does), for the interval's
 * end to group it by (pt_membership_follow_name): one pread of its kept
 * cmdline a member. */
static void read_titles(const struct pt_target *t)
{
    for (size_t i = 0; i < t->membership.n_members; i++)
        if (!t->membership.members[i].gone)
            pt_membership_read_title(t, &t->membership.members[i]);
}

void pt_membership_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                             struct pt_target_sampling *s, struct pt_target_cgroups *cg, double now, double boottime,
                             double blkio_since)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_ledger_next_round(mp->ledger);
    retry_denied(t);
    bool delayacct = !isnan(blkio_since), was_read = pt_interval_begin_end_reads(mp->interval, boottime, delayacct);
    pt_membership_snapshot(t, PT_TR_MODE_FULL); /* one moment for every member's counters */
    poll_members(t, mp);                        /* the last sample of the interval, */
    pt_targetcg_poll(t, cg);                    /* its cgroups' too: an interval with no poll before has this one */
    int64_t threads = read_all_counters(t, mp);
    if (t->options.collect_pss && t->pss_at_end)
        sample_smaps(t, mp, s);
    sample_tcounts(t, mp);
    if (t->options.breakdown == PT_BY_TITLE)
        read_titles(t);
    int64_t fds = t->options.collect_fds ? count_fds(t, mp, now) : -1;
    pt_membership_forget_snapshot(t);
    bool blkio_shown = was_read && delayacct && all_started_after(t, blkio_since);
    pt_membership_compact(mp);
    pt_interval_end_reads_done(mp->interval, threads, fds, blkio_shown);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_target_debug_check(t, "the last reads");
}
