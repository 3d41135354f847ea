#include "tree/sampling.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tree/membership.h"
#include "util/ratelimit.h"
#include "util/saturate.h"
#include "tree/targetcg.h"
#include "accounting/interval.h"

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

static void poll_members(const struct pt_target *t, const struct pt_membership_parts *mp)
{
    int64_t sum[PT_G_COUNT] = {0}; /* bytes */
    bool sampled = false;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        struct pt_statm sm;
        enum pt_read r = pt_member_read_statm(m, t->proc_root_fd, t->buf, &sm);
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

void pt_sampling_poll(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_cgroups *cg)
{
    double cpu0 = pt_thread_cpu_seconds();
    poll_members(t, mp);
    pt_targetcg_poll(cg, t);
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
 * tables), yet every member's is read at every PSS sample: no cheaper rule
 * is exact. A member's PSS moves with no sign in anything cheaper to read
 * than the file itself: a fork shares all of its parent's pages and halves
 * the parent's PSS; a write to a page shared since a fork (copy on write)
 * gives the writer a page of its own and raises both sides' PSS; an exit,
 * an exec, an munmap elsewhere, KSM, a process outside the tree mapping
 * the same file or shared memory: none of them moves the member's own
 * statm (size, resident and shared are counts of mapped pages, which a
 * copy on write keeps), and the faults a copy on write costs are not all
 * counted (one made through get_user_pages, an O_DIRECT read into the
 * page, counts in no process's minflt). A reading carried from before
 * any of them is a wrong number (issue 38: a prefork tree 8 to 25 % high
 * for as long as its memory stayed still), so none is carried.
 *
 * The one exception is asked for: with --pss-budget / PssBudget (off by
 * default), a member whose read takes longer than the budget (a large
 * process, which the walk holds up) is read at every 2nd, 4th, ... sample
 * (up to every 64th), its last values standing in meanwhile (pss_stale
 * counts them); a fast read brings it back to every sample. Saying so is
 * rate-limited to once in 10 minutes per target: a member can go slow and
 * fast again many times. */
#define PT_SMAPS_MAX_PERIOD 64

static bool smaps_due(struct pt_member *m)
{
    if (m->smaps_wait > 0) {
        m->smaps_wait--;
        return false;
    }
    return true;
}

static void smaps_timed(const struct pt_target *t, const struct pt_membership_parts *mp, struct pt_target_sampling *s,
                        struct pt_member *m)
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
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        if (smaps_due(m)) {
            smaps_timed(t, mp, s, m);
            pt_target_warn_denied(t, mp->warned_denied, m);
        } else if (m->has_smaps) {
            pt_interval_add_pss_stale(mp->interval);
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

void pt_sampling_sample_pss(const struct pt_target *t, const struct pt_membership_parts *mp,
                            struct pt_target_sampling *s)
{
    if (!t->options.collect_pss)
        return;
    double cpu0 = pt_thread_cpu_seconds();
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
        enum pt_read r = pt_member_read_tcounts(m, t->proc_root_fd, t->buf, want, ns_per_tick, now, &got);
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
        enum pt_read r = pt_member_count_fds(&t->membership.members[i], t->proc_root_fd, &n);
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

void pt_sampling_end_reads(const struct pt_target *t, const struct pt_membership_parts *mp,
                           struct pt_target_sampling *s, struct pt_target_cgroups *cg, double now, double blkio_since)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_ledger_next_round(mp->ledger);
    retry_denied(t);
    bool delayacct = !isnan(blkio_since), was_read = pt_interval_begin_end_reads(mp->interval, delayacct);
    poll_members(t, mp);     /* the last sample of the interval, */
    pt_targetcg_poll(cg, t); /* its cgroups' too: an interval with no poll before has this one */
    int64_t threads = read_all_counters(t, mp);
    if (t->options.collect_pss && t->pss_at_end)
        sample_smaps(t, mp, s);
    sample_tcounts(t, mp);
    bool blkio_shown = was_read && delayacct && all_started_after(t, blkio_since);
    int64_t fds = t->options.collect_fds ? count_fds(t, mp, now) : -1;
    pt_membership_compact(mp);
    pt_interval_end_reads_done(mp->interval, threads, fds, blkio_shown);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_target_debug_check(t, "the last reads");
}
