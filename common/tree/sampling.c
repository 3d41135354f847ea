/* sampling: a target's reads at each cadence (docs/DESIGN.md, "Cadences"). */
#include "tree/sampling.h"

#include <math.h>

#include "member/memberthreads.h"
#include "util/saturate.h"
#include "tree/targetcg.h"
#include "member/membersource.h"

/* Nobody in the tree will absorb this member's usage when it dies: its
 * parent is outside the tree (the root; an orphan re-parented to init or
 * to us). Such members are read at every poll so their last values stay
 * fresh. */
static bool is_exposed(const struct pt_target *t, const struct pt_member *m)
{
    return pt_targetstate_live_member(t, m->ppid) == NULL;
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
        enum pt_read r = pt_membersource_statm(m, t->proc_root_fd, t->buf, pt_membership_source_units(t), &sm, &served);
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
void pt_sampling_snapshot(const struct pt_target *t, enum pt_taskrec_mode mode, bool sockets)
{
    if (t->taskiter)
        pt_taskiter_snapshot_sockets(t->taskiter, mode, sockets);
}

void pt_sampling_forget_snapshot(const struct pt_target *t)
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

bool pt_sampling_pass_pays(const struct pt_target *t)
{
    if (!t->taskiter)
        return false;
    return (uint64_t)pt_targetstate_live_members(t) * PT_STATM_VISITS >= pt_taskiter_visits(t->taskiter);
}

/* A poll by the list costs a lookup a member (about a tenth of its statm
 * pread here) and one read of the iterator per PT_TASKREC_STATM_CHUNK
 * members: it always pays. */
static bool poll_pass_pays(const struct pt_target *t)
{
    return t->taskiter && (pt_taskiter_polls_by_list(t->taskiter) || pt_sampling_pass_pays(t));
}

void pt_sampling_poll(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_cgroups *cg)
{
    double cpu0 = pt_thread_cpu_seconds();
    /* a breakdown reads every member's counters at a poll: the whole
     * snapshot then; else the members' memory alone, where a pass costs
     * less than their statm files */
    bool every_member = pt_target_partitions(t);
    if (every_member || poll_pass_pays(t))
        pt_sampling_snapshot(t, every_member ? PT_TR_MODE_FULL : PT_TR_MODE_STATM, false);
    poll_members(t, mp);
    pt_sampling_forget_snapshot(t);
    pt_targetcg_poll(t, cg);
    pt_membership_compact(mp);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "a poll");
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
        pt_targetstate_logf(t, PT_LOG_INFO, "smaps_rollup of pid %d took %.1f ms; reading it less often%s", (int)m->pid,
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
            pt_targetstate_warn_denied(t, mp->warned_denied, m);
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

void pt_sampling_pss(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_sampling *s)
{
    if (!t->options.collect_pss)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    pt_sampling_snapshot(t, PT_TR_MODE_FULL, false); /* the counters the rule asks for, in one pass */
    read_counters_for_pss(t, mp, s);
    pt_sampling_forget_snapshot(t);
    sample_smaps(t, mp, s);
    pt_membership_compact(mp);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "a PSS sample");
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
        enum pt_read r = t->options.breakdown == PT_BY_THREAD
                             ? pt_member_read_tcounts(m, t->proc_root_fd, t->buf, want, ns_per_tick, now, &got)
                             : pt_membersource_tcounts(m, t->proc_root_fd, t->buf, want, pt_membership_source_units(t),
                                                       now, &got, &served);
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
        enum pt_read r =
            pt_membersource_fds(&t->membership.members[i], t->proc_root_fd, pt_membership_source_units(t), &n);
        if (r == PT_READ_OK) {
            total = pt_sat_add(total, n);
            any = true;
            count_fd_limit(t, mp, &t->membership.members[i], n, now);
            pt_ledger_fds(mp->ledger, &t->membership.members[i].acct, n);
        } else if (r == PT_READ_NO_FDS) {
            pt_interval_add_short(mp->interval, PT_SHORT_FDS);
        }
        pt_targetstate_warn_denied(t, mp->warned_denied, &t->membership.members[i]);
    }
    return any ? total : -1;
}

/* The breakdown by thread name: every live member's threads, read now,
 * credited by name. A thread that exits between two reads loses what it
 * did since the first (docs/METRICS.md, "Breakdown"), unless its exit
 * record credits it (exits.c). */
void pt_sampling_read_threads(const struct pt_target *t, const struct pt_membership_parts *mp,
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

bool pt_sampling_begin_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                                 struct pt_target_cgroups *cg, double boottime, double blkio_since)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_ledger_next_round(mp->ledger);
    retry_denied(t);
    bool was_read = pt_interval_begin_end_reads(mp->interval, boottime, !isnan(blkio_since));
    pt_sampling_snapshot(t, PT_TR_MODE_FULL, true); /* one moment for every member's counters */
    poll_members(t, mp);                            /* the last sample of the interval, */
    pt_targetcg_poll(t, cg);                        /* its cgroups' too: an interval with no poll before has this one */
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    return was_read;
}

void pt_sampling_finish_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                                  struct pt_target_sampling *s, double now, double blkio_since, bool was_read)
{
    double cpu0 = pt_thread_cpu_seconds();
    if (t->options.collect_pss && t->pss_at_end)
        sample_smaps(t, mp, s);
    sample_tcounts(t, mp);
    if (t->options.breakdown == PT_BY_TITLE)
        read_titles(t);
    int64_t fds = t->options.collect_fds ? count_fds(t, mp, now) : -1;
    pt_sampling_forget_snapshot(t);
    bool delayacct = !isnan(blkio_since);
    bool blkio_shown = was_read && delayacct && all_started_after(t, blkio_since);
    pt_membership_compact(mp);
    pt_interval_end_reads_done(mp->interval, fds, blkio_shown);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "the last reads");
}
