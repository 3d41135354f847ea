#include "tree/membership.h"

#include <stdio.h>
#include <string.h>

#include "member/memberthreads.h"
#include "util/saturate.h"
#include "member/membersource.h"
#include "accounting/ledgerrecords.h"

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

struct pt_membersource_units pt_membership_source_units(const struct pt_target *t)
{
    return (struct pt_membersource_units){.ticks_per_second = t->ticks_per_second, .page_size = t->page_size};
}

/* Read m's counters, moving its io in or out of the tree's when the
 * permissions changed their answer. Its own faults that moved, or a new
 * name (an exec), or a read that could not tell, move the tree's
 * memory_gen: its PSS, and its sharers', may have moved (the PSS rule,
 * sampling.c's PT_SMAPS_MAX_PERIOD). */
static enum pt_read read_member_counters(const struct pt_target *t, const struct pt_membership_parts *mp,
                                         struct pt_member *m)
{
    bool had_io = m->acct.has_io, had_stat = m->acct.has_stat, served;
    int64_t minflt = m->acct.own[PT_CTR_MINFLT], majflt = m->acct.own[PT_CTR_MAJFLT];
    char comm[sizeof(m->comm)];
    memcpy(comm, m->comm, sizeof(comm)); /* a string: the bytes after its end are not its */
    enum pt_read r = pt_membersource_counters(m, t->proc_root_fd, t->buf, t->interval.blkio_read,
                                              pt_membership_source_units(t), &served);
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
        pt_ledgerrecords_credit_tcounts(ledger, m->acct.group, grown, counted);
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
    pt_udpbytes_left(mp->udp, m->pid, m->starttime, m->acct.group, &m->udp);
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
    struct pt_member *m = pt_targetstate_live_member(t, pid);
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
    member_left(t, mp, m, pt_targetstate_live_member(t, m->ppid));
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
    pt_targetstate_warn_denied(t, mp->warned_denied, m); /* io may refuse its first read, not its open */
    m->read_at = pt_now();
    pt_ledger_read(mp->ledger, &m->acct);
    if (m->zombie && !m->children_settled)
        settle_children(t, mp, m);
    pt_ledger_settle(mp->ledger, &m->acct, m->zombie);
    pt_membership_exact_cpu(t, mp->ledger, m);
}

void pt_membership_read_all_counters(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    double cpu0 = pt_thread_cpu_seconds();
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (!m->gone)
            pt_membership_read_counters(t, mp, m);
    }
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
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
    pt_ledgerrecords_split_run_time((double)m->recorded_run_us, (double)m->recorded[PT_REC_USER_US],
                                    (double)m->recorded[PT_REC_SYSTEM_US], shown);
    pt_ledgerrecords_exact_cpu(ledger, &m->acct, shown);
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
    const struct pt_member *p = pt_targetstate_live_member(t, parent);
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
    const struct pt_member *p = t->discovery.join_group ? NULL : pt_targetstate_live_member(t, m->ppid);
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
    pt_targetstate_warn_denied(t, mp->warned_denied, &m);
    m.baseline_walk = baseline;
    m.born = !baseline;
    if (baseline && t->udp.counts) /* its bytes from now: another target may count them already */
        pt_udpcount_lookup(t->udp.counts, pid, m.starttime, &m.udp);
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
    pt_ledgerrecords_credit_thread(ledger, u->comm, user, system, u->ctx_now, voluntary, involuntary);
}
