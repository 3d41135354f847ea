#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "lines.h"
#include "saturate.h"

/* One log line about t: 'target "NAME": ' and the message. The name is
 * escaped: whoever names a process or writes a pid file chooses it. */
void pt_target_logf(const struct pt_target *t, enum pt_log_level level, const char *fmt, ...)
{
    char name[PT_QUOTED_MAX], what[PT_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    pt_logf(level, "target \"%s\": %s", pt_escape(name, sizeof(name), t->name), what);
}

/* ---- membership ------------------------------------------------------- */

struct pt_member *pt_target_live_member(const struct pt_target *t, pid_t pid)
{
    long i = pt_pidmap_get(&t->index, pid);
    if (i < 0 || t->members[i].gone)
        return NULL;
    return &t->members[i];
}

/* Nobody in the tree will absorb this member's usage when it dies: its
 * parent is outside the tree (the root; an orphan re-parented to init or
 * to us). Such members are read at every poll so their last values stay
 * fresh. */
static bool is_exposed(const struct pt_target *t, const struct pt_member *m)
{
    return pt_target_live_member(t, m->ppid) == NULL;
}

/* A member whose name changed (exec) moves to its new name's group with
 * what it did since the last interval's end: at that end, or when it
 * leaves before it (then what it did under its new name is not left in
 * the old name's group). */
static void follow_name(struct pt_target *t, struct pt_member *m)
{
    struct pt_groups *gs = &t->ledger.groups;
    if (m->acct.group < 0 || strcmp(gs->list[m->acct.group].name, m->comm) == 0)
        return;
    pt_ledger_regroup(&t->ledger, &m->acct, pt_groups_find(gs, m->comm));
}

static void settle_children(struct pt_target *t, struct pt_member *parent);

/* Read m's counters, moving its io in or out of the tree's when the
 * permissions changed their answer. */
static enum pt_read read_member_counters(struct pt_target *t, struct pt_member *m)
{
    bool had_io = m->acct.has_io;
    enum pt_read r = pt_member_read_counters(m, t->proc_root_fd, &t->buf);
    pt_ledger_io_changed(&t->ledger, &m->acct, had_io);
    return r;
}

/* Context switches of m since its last status read, now that its live
 * threads sum to vol/invol: that sum, plus the final counts of the
 * threads whose exit records came since, less the last read's sum (which
 * counted those threads up to then). Never negative; a member born in
 * the tree brings its whole count, one joined as a root none before its
 * first read. */
static void credit_exited_threads(struct pt_target *t, struct pt_member *m, int64_t vol, int64_t invol)
{
    /* to the group of the name it has now, as its counters since the
     * interval's end go (a child that renames itself after its fork) */
    follow_name(t, m);
    if (t->options.collect_ctx_switches && (m->has_ctx || m->born)) {
        vol = pt_sat_add(vol, m->exited_voluntary);
        invol = pt_sat_add(invol, m->exited_involuntary);
        int64_t base_vol = m->has_ctx ? m->ctx_voluntary : 0, base_invol = m->has_ctx ? m->ctx_involuntary : 0;
        pt_ledger_credit_switches(&t->ledger, m->acct.group, vol > base_vol ? vol - base_vol : 0,
                                  invol > base_invol ? invol - base_invol : 0);
    }
    m->exited_voluntary = m->exited_involuntary = 0;
}

/* The member is gone, reaped by reaper (a member: its counters carry, or
 * will carry, m's whole usage) or by someone outside the tree (NULL: m's
 * last values move into adjust, so what it did stays counted). Its member
 * children are settled first, since m's own counters took the ones it
 * reaped. */
static void member_left(struct pt_target *t, struct pt_member *m, struct pt_member *reaper)
{
    if (m->gone)
        return;
    follow_name(t, m);
    pt_ledger_seen(&t->ledger, &m->acct);
    m->gone = true;
    pt_member_close(m);
    t->exited += !m->exit_counted;
    t->membership_moved = true; /* what it shared is shared by fewer */
    if (t->follows_events)      /* its forks may still be in the socket */
        pt_pidmap_put(&t->lately, m->pid, 1);
    if (t->follows_exits) {
        pt_target_depart(t, m, reaper);
        credit_exited_threads(t, m, 0, 0); /* its live threads now are none */
    }
    t->need_compaction = true;
    settle_children(t, m);
    pt_ledger_leave(&t->ledger, &m->acct, reaper ? &reaper->acct : NULL);
}

void pt_target_member_changed(struct pt_target *t, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(t, pid);
    if (!m)
        return;
    pt_member_reopen(m);
    t->membership_moved = true; /* a new program's memory */
}

/* Gone, as seen by a read in tree order (parents before children): if the
 * parent is a member still there, it reaped this one. */
void pt_target_member_gone(struct pt_target *t, struct pt_member *m)
{
    member_left(t, m, pt_target_live_member(t, m->ppid));
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
static void settle_children(struct pt_target *t, struct pt_member *parent)
{
    parent->children_settled = true;
    pid_t pid = parent->pid;
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone || m->ppid != pid || m == parent)
            continue;
        if (read_member_counters(t, m) == PT_READ_GONE)
            member_left(t, m, parent);
        else if (m->zombie && !m->children_settled)
            settle_children(t, m);
    }
}

/* Permission denied on io, smaps_rollup or fd/ (another user's process):
 * the metrics they feed are left out for that process. Say so once per
 * target and kind. Each file needs its own capability: smaps_rollup
 * ptrace access (CAP_SYS_PTRACE), fd/ (mode 0500) the file permission
 * check (CAP_DAC_READ_SEARCH), io (0400) both; so the advice names both. */
static void warn_denied(struct pt_target *t, const struct pt_member *m)
{
    static const struct {
        enum pt_denied bit;
        const char *file, *metrics;
    } kinds[] = {
        {PT_DENIED_IO, "io", "I/O"},
        {PT_DENIED_SMAPS, "smaps_rollup", "PSS, USS, shared and swap"},
        {PT_DENIED_FDS, "fd/", "fd"},
    };
    for (size_t k = 0; k < PT_ARRAY_LEN(kinds); k++) {
        if (!(m->denied & kinds[k].bit) || (t->warned_denied & kinds[k].bit))
            continue;
        t->warned_denied |= kinds[k].bit;
        pt_target_logf(t, PT_LOG_WARNING,
                       "permission denied on /proc/%d/%s; %s metrics leave out such processes "
                       "(run as their user, as root, or with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH)",
                       (int)m->pid, kinds[k].file, kinds[k].metrics);
    }
}

/* Refresh a member's counters, and settle what the read tells. */
static void read_counters(struct pt_target *t, struct pt_member *m)
{
    enum pt_read r = read_member_counters(t, m);
    if (r == PT_READ_GONE) {
        pt_target_member_gone(t, m);
        return;
    }
    if (r == PT_READ_NO_FDS)
        t->short_of_fds |= PT_SHORT_COUNTERS;
    if (r != PT_READ_OK) {
        t->vanished++;
        return;
    }
    warn_denied(t, m); /* io may refuse its first read, not its open */
    m->read_at = pt_now();
    pt_ledger_read(&t->ledger, &m->acct);
    if (m->zombie && !m->children_settled)
        settle_children(t, m);
    pt_ledger_settle(&t->ledger, &m->acct, m->zombie);
}

void pt_target_leave_all(struct pt_target *t)
{
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        read_counters(t, m); /* its last values: may find it gone */
        member_left(t, m, NULL);
        if (t->follows_events)
            pt_pidmap_put(&t->lately, m->pid, 0);
    }
    pt_target_compact(t);
}

void pt_target_compact(struct pt_target *t)
{
    if (!t->need_compaction)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < t->n_members; i++)
        if (!t->members[i].gone)
            t->members[kept++] = t->members[i];
    t->n_members = kept;
    pt_pidmap_clear(&t->index);
    for (size_t i = 0; i < kept; i++)
        pt_pidmap_put(&t->index, t->members[i].pid, (uint32_t)i);
    t->need_compaction = false;
}

/* Open pid as a new member. baseline: it joins as part of a new root's
 * tree (its past is not counted); otherwise it was born in the tree. */
struct pt_member *pt_target_join(struct pt_target *t, pid_t pid, uint64_t expected_starttime, bool baseline)
{
    struct pt_member m;
    enum pt_read r = pt_member_open(&m, t->proc_root_fd, t->budget, pid, expected_starttime, &t->buf);
    if (r == PT_READ_NO_FDS) {
        /* The process is tried again at the next discovery tick; until it
         * has joined, every sum of the tree would be partial. */
        t->vanished++;
        t->short_of_fds |= PT_SHORT_MEMBERS;
    }
    if (r != PT_READ_OK)
        return NULL;
    if (m.zombie && !baseline && t->follows_exits && t->options.breakdown != PT_BY_NONE && m.ppid != t->self) {
        /* With a breakdown its exit record settles it (exits.c), whether
         * it came already or is to come: joined too, its group would count
         * it twice. Launch mode joins what it reaps itself. */
        pt_member_close(&m);
        return NULL;
    }
    if (m.kernel_thread && t->has_matcher) {
        /* Kernel threads hold no user memory and would add the kernel's
         * own work to "root's programs": only --pid may name one. */
        pt_member_close(&m);
        return NULL;
    }
    if (t->n_members == t->cap_members) {
        t->cap_members = t->cap_members ? t->cap_members * 2 : 16;
        t->members = pt_xrealloc_array(t->members, t->cap_members, sizeof(*t->members));
    }
    warn_denied(t, &m);
    m.baseline_walk = baseline;
    m.born = !baseline;
    m.since = baseline ? pt_now() : 0;
    m.recorded_whole = !baseline && t->follows_exits;
    m.read_at = pt_now();
    pt_ledger_join(&t->ledger, &m.acct,
                   pt_target_by_process(t) ? (int32_t)pt_groups_find(&t->ledger.groups, m.comm) : -1, baseline);
    /* A zombie joins too (but for a breakdown's, above): its counters are
     * final, and count in the interval it ran in, not in its reaper's at
     * the reap (which then owes them, as for any member that leaves). One
     * the events counted already (started, and exited) is not counted
     * again. */
    m.exit_counted = pt_pidmap_remove(&t->unjoined_exits, pid);
    if (!baseline && !pt_pidmap_remove(&t->forked, pid) && !m.exit_counted) /* else counted at its fork event */
        t->started++;
    if (t->follows_events)
        pt_pidmap_put(&t->lately, pid, !baseline);
    t->membership_moved = true;
    t->members[t->n_members] = m;
    pt_pidmap_put(&t->index, pid, (uint32_t)t->n_members);
    return &t->members[t->n_members++];
}

const char *pt_target_name(const struct pt_target *t)
{
    return t->name;
}

const char *pt_target_breakdown_key(const struct pt_target *t)
{
    return pt_breakdown_name(t->options.breakdown);
}

const struct pt_group_report *pt_target_group_reports(const struct pt_target *t, size_t *n)
{
    *n = t->n_group_reports;
    return t->group_reports;
}

pid_t pt_target_launched_pid(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_CHILD ? t->selector.pid : 0;
}

bool pt_target_has_member(const struct pt_target *t, pid_t pid)
{
    return pt_target_live_member(t, pid) != NULL;
}

size_t pt_target_live_members(const struct pt_target *t)
{
    size_t live = 0;
    for (size_t i = 0; i < t->n_members; i++)
        live += !t->members[i].gone;
    return live;
}

/* ---- sampling --------------------------------------------------------- */

/* Pages to bytes, saturating (statm is clamped to PT_MAX_PAGES, but the
 * page size is the machine's). */
static int64_t page_bytes(const struct pt_target *t, uint64_t pages)
{
    uint64_t page = (uint64_t)t->page_size;
    return pages > (uint64_t)INT64_MAX / page ? INT64_MAX : (int64_t)(pages * page);
}

/* A member's share of one poll's gauges [first, last], to its group. */
static void group_gauges(struct pt_target *t, const struct pt_member *m, const int64_t *now, int first, int last)
{
    if (m->acct.group < 0)
        return;
    struct pt_group *g = &t->ledger.groups.list[m->acct.group];
    for (int k = first; k <= last; k++)
        g->poll[k] = pt_sat_add(g->poll[k], now[k]);
}

static void poll_members(struct pt_target *t)
{
    int64_t size = 0, resident = 0, anon = 0; /* bytes */
    bool sampled = false;
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        struct pt_statm sm;
        enum pt_read r = pt_member_read_statm(m, t->proc_root_fd, &t->buf, &sm);
        if (r == PT_READ_OK) {
            m->statm = sm;
            m->has_statm = true;
            int64_t now[PT_G_ANON + 1] = {
                [PT_G_VM] = page_bytes(t, sm.size),
                [PT_G_RSS] = page_bytes(t, sm.resident),
                /* shared can exceed resident for an instant while pages move */
                [PT_G_ANON] = page_bytes(t, sm.resident > sm.shared ? sm.resident - sm.shared : 0),
            };
            size = pt_sat_add(size, now[PT_G_VM]);
            resident = pt_sat_add(resident, now[PT_G_RSS]);
            anon = pt_sat_add(anon, now[PT_G_ANON]);
            group_gauges(t, m, now, PT_G_VM, PT_G_ANON);
            sampled = true;
        } else if (r == PT_READ_GONE) {
            pt_target_member_gone(t, m);
            continue;
        } else {
            t->short_of_fds |= r == PT_READ_NO_FDS ? PT_SHORT_STATM : 0;
            t->vanished++;
        }
        /* With a breakdown every member is read: what a child does after
         * its last read counts in its reaper's group */
        if (is_exposed(t, m) || pt_target_by_process(t))
            read_counters(t, m);
    }
    if (sampled) {
        pt_extrema_add(&t->gauges[PT_G_VM], size);
        pt_extrema_add(&t->gauges[PT_G_RSS], resident);
        pt_extrema_add(&t->gauges[PT_G_ANON], anon);
        t->samples++;
        if (pt_target_by_process(t))
            pt_groups_end_poll(&t->ledger.groups, PT_G_VM, PT_G_ANON);
    }
}

void pt_target_poll(struct pt_target *t)
{
    double cpu0 = pt_thread_cpu_seconds();
    poll_members(t);
    pt_target_compact(t);
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;
}

/* Counters of every member, parents first (see the header). */
static void read_all_counters(struct pt_target *t, int64_t *threads)
{
    *threads = 0;
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        read_counters(t, m);
        if (!m->gone)
            *threads = pt_sat_add(*threads, m->num_threads);
    }
}

/* smaps_rollup is the dearest file by far (it walks the process's page
 * tables, under its memory lock), so it is read only when it can say
 * something new, and its last values stand in otherwise (pss_stale
 * counts them):
 *   - while no member's statm (size, resident, shared) has moved since
 *     its last smaps_rollup read, and no member joined or left, no member
 *     has mapped, touched, swapped or dropped a page, nor started or
 *     stopped sharing one with another: the tree is idle, and each member
 *     is read again at every PT_SMAPS_IDLE_PERIOD-th sample only, for
 *     what processes outside the tree change in its share of the pages it
 *     shares. Once any member moved, every member is read: a member's PSS
 *     changes when another touches the pages it shares (a parent's shared
 *     buffers, the workers it forked), with its own statm unchanged;
 *   - a member whose read takes longer than the budget (a large process,
 *     stalled while it is read) is read at every 2nd, 4th, ... sample (up
 *     to every 64th); a fast read brings it back to every sample. */
#define PT_SMAPS_MAX_PERIOD 64
#define PT_SMAPS_IDLE_PERIOD 10

static bool same_statm(const struct pt_statm *a, const struct pt_statm *b)
{
    return a->size == b->size && a->resident == b->resident && a->shared == b->shared;
}

/* Has the tree's memory moved since the last smaps_rollup sample? */
static bool tree_memory_moved(struct pt_target *t)
{
    bool moved = t->membership_moved;
    t->membership_moved = false;
    for (size_t i = 0; i < t->n_members && !moved; i++) {
        const struct pt_member *m = &t->members[i];
        bool unsampled = !m->has_smaps && !(m->denied & PT_DENIED_SMAPS) && !m->zombie; /* joined, exec'd */
        moved = !m->gone && (unsampled || (m->has_statm && !same_statm(&m->statm, &m->statm_at_smaps)));
    }
    return moved;
}

static bool smaps_due(struct pt_member *m, bool tree_idle)
{
    if (m->smaps_wait > 0) {
        m->smaps_wait--;
        return false;
    }
    if (tree_idle && m->smaps_carried + 1 < PT_SMAPS_IDLE_PERIOD) {
        m->smaps_carried++;
        return false;
    }
    return true;
}

static void smaps_timed(struct pt_target *t, struct pt_member *m)
{
    double start = pt_now();
    struct pt_smaps_rollup sr;
    m->statm_at_smaps = m->statm; /* what the tree's idleness is judged against, read or not */
    enum pt_read r = pt_member_read_smaps(m, t->proc_root_fd, &t->buf, &sr);
    if (r == PT_READ_NO_FDS)
        t->short_of_fds |= PT_SHORT_SMAPS;
    if (r == PT_READ_FAILED)
        m->has_smaps = false; /* denied, or no memory: its last values are not its memory now */
    if (r != PT_READ_OK)
        return;
    double took = pt_now() - start;
    m->smaps = sr;
    m->has_smaps = true;
    m->smaps_carried = 0;
    if (t->options.pss_budget <= 0 || took <= t->options.pss_budget) {
        m->smaps_period = 1;
        return;
    }
    uint32_t before = m->smaps_period ? m->smaps_period : 1;
    m->smaps_period = before * 2 > PT_SMAPS_MAX_PERIOD ? PT_SMAPS_MAX_PERIOD : before * 2;
    m->smaps_wait = m->smaps_period - 1;
    if (before == 1)
        pt_target_logf(t, PT_LOG_INFO, "smaps_rollup of pid %d took %.1f ms; reading it less often", (int)m->pid,
                       took * 1e3);
}

static void sample_smaps(struct pt_target *t)
{
    int64_t sum[PT_G_COUNT] = {0};
    bool sampled = false, tree_idle = !tree_memory_moved(t);
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        if (smaps_due(m, tree_idle)) {
            smaps_timed(t, m);
            warn_denied(t, m);
        } else
            t->pss_stale += m->has_smaps;
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
        group_gauges(t, m, now, PT_G_PSS, PT_G_SWAP);
        sampled = true;
    }
    if (!sampled)
        return;
    for (int g = PT_G_PSS; g <= PT_G_SWAP; g++)
        pt_extrema_add(&t->gauges[g], sum[g]);
    if (pt_target_by_process(t))
        pt_groups_end_poll(&t->ledger.groups, PT_G_PSS, PT_G_SWAP);
}

void pt_target_sample_pss(struct pt_target *t)
{
    if (!t->options.collect_pss)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    sample_smaps(t);
    pt_target_compact(t);
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;
}

/* Context switches are not inclusive counters: a thread's vanish with it,
 * unless its exit record keeps them (credit_exited_threads). Each member
 * contributes what its threads did since its last read. */
static void sample_ctx_switches(struct pt_target *t)
{
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        int64_t vol, invol;
        if (m->gone)
            continue;
        if (m->zombie && t->follows_exits) {
            /* Its threads have exited (all but in the rare zombie leader
             * of live threads): their records hold their counts, and its
             * status would count the leader's a second time. */
            credit_exited_threads(t, m, 0, 0);
            m->ctx_voluntary = m->ctx_involuntary = 0;
            m->has_ctx = true;
            continue;
        }
        enum pt_read r = pt_member_read_ctx_switches(m, t->proc_root_fd, &t->buf, &vol, &invol);
        if (r == PT_READ_NO_FDS)
            t->short_of_fds |= PT_SHORT_CTX;
        if (r != PT_READ_OK)
            continue;
        credit_exited_threads(t, m, vol, invol);
        m->ctx_voluntary = vol;
        m->ctx_involuntary = invol;
        m->has_ctx = true;
        t->ledger.ctx_seen = true;
    }
}

/* Open descriptors of the live members; -1 when none could be counted. */
static int64_t count_fds(struct pt_target *t)
{
    int64_t total = 0;
    bool any = false;
    for (size_t i = 0; i < t->n_members; i++) {
        int64_t n;
        if (t->members[i].gone)
            continue;
        enum pt_read r = pt_member_count_fds(&t->members[i], t->proc_root_fd, &n);
        if (r == PT_READ_OK) {
            total = pt_sat_add(total, n);
            any = true;
            if (t->members[i].acct.group >= 0) {
                struct pt_group *g = &t->ledger.groups.list[t->members[i].acct.group];
                g->fds = pt_sat_add(g->fds, n);
                g->fds_seen = true;
            }
        } else if (r == PT_READ_NO_FDS) {
            t->short_of_fds |= PT_SHORT_FDS;
        }
        warn_denied(t, &t->members[i]);
    }
    return any ? total : -1;
}

/* This interval's deltas of the tree, every live member counted (after
 * pt_ledger_count). Short of descriptors, some member was not read: its
 * work is left for the next interval, which reports it (the base stays). */
static void counter_deltas(struct pt_target *t, int64_t delta[PT_CTR_COUNT])
{
    pt_ledger_deltas(&t->ledger, t->short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS), delta);
}

/* What a line reports of the live members, the tree's or a group's. */
static void put_live(struct pt_line *line, bool ctx_seen, int64_t voluntary, int64_t involuntary, int64_t fds,
                     int64_t processes, int64_t threads)
{
    if (ctx_seen) {
        pt_line_put(line, PT_A_CTX_VOLUNTARY, (double)voluntary);
        pt_line_put(line, PT_A_CTX_INVOLUNTARY, (double)involuntary);
    }
    if (fds >= 0) /* -1: not counted */
        pt_line_put(line, PT_A_FDS, (double)fds);
    pt_line_put(line, PT_A_PROCESSES, (double)processes);
    if (line->stat_seen)
        pt_line_put(line, PT_A_THREADS, (double)threads);
}

/* The tree's line: its amounts, named as the catalog sets metrics from
 * them (catalog.h, lines.h). */
static void fill_report(struct pt_target *t, double seconds, int64_t processes, int64_t threads, int64_t fds,
                        const struct pt_units *units, struct pt_report *report)
{
    struct pt_line line;
    pt_line_init(&line, PT_LINES_ONE, seconds, t->ticks_per_second, t->cpu_percent_max);
    line.gauges = t->gauges;
    line.io_seen = t->ledger.io_seen;
    line.stat_seen = t->ledger.stat_seen;
    counter_deltas(t, line.delta);
    put_live(&line, t->ledger.ctx_seen, t->ledger.ctx_voluntary, t->ledger.ctx_involuntary, fds, processes, threads);
    pt_line_put(&line, PT_A_STARTED, (double)t->started);
    pt_line_put(&line, PT_A_EXITED, (double)t->exited);
    /* what the exit records tell, only where they are in use; failed,
     * killed and the peak are left out of an interval that lost records */
    if (t->follows_exits) {
        pt_line_put(&line, PT_A_EXIT_RECORDS, (double)t->exit_records);
        pt_line_put(&line, PT_A_EXIT_RECORD_LOSSES, (double)t->exit_record_losses);
    }
    if (t->follows_exits && t->exits_complete) {
        pt_line_put(&line, PT_A_FAILED, (double)t->failed);
        pt_line_put(&line, PT_A_KILLED, (double)t->killed);
        pt_line_put(&line, PT_A_EXITED_RSS_PEAK, (double)t->rss_peak_kb * 1024.0);
    }
    pt_line_put(&line, PT_A_SAMPLES, (double)t->samples);
    pt_line_put(&line, PT_A_VANISHED, (double)t->vanished);
    /* thread CPU clocks are not meaningful below a microsecond */
    pt_line_put(&line, PT_A_COLLECTOR_CPU, (double)(int64_t)(t->cpu_seconds * 1e6 + 0.5) / 1e6);
    if (t->options.collect_pss)
        pt_line_put(&line, PT_A_PSS_STALE, (double)t->pss_stale);
    pt_line_report(&line, units, report);
}

/* Short of descriptors: leave out what was not read whole, and say so in
 * one line per interval. */
static void leave_out_unknown(struct pt_target *t, struct pt_report *report)
{
    if (!t->short_of_fds)
        return;
    pt_line_drop_unknown(report, t->short_of_fds);
    for (size_t i = 0; i < t->n_group_reports; i++)
        pt_line_drop_unknown(&t->group_reports[i].report, t->short_of_fds);
    char what[160];
    pt_short_describe(t->short_of_fds, what, sizeof(what));
    pt_target_logf(t, PT_LOG_ERROR,
                   "out of file descriptors (EMFILE/ENFILE); left out this interval:%s; "
                   "raise the open-files limit (LimitNOFILE=) or lower the descriptor budget",
                   what);
}

/* Every live member counted into the tree's sums, and into its group's
 * once it is in its name's group; then the baseline for debts taken from
 * now on. */
static void count_members(struct pt_target *t)
{
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        if (pt_target_by_process(t)) {
            follow_name(t, m);
            struct pt_group *g = &t->ledger.groups.list[m->acct.group];
            pt_ledger_seen(&t->ledger, &m->acct);
            if (m->acct.has_stat)
                g->threads = pt_sat_add(g->threads, m->num_threads);
        }
        pt_ledger_count(&t->ledger, &m->acct);
        pt_ledger_snapshot(&m->acct);
    }
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

/* A thread's usage since the last interval's end, to its name's group. */
void pt_target_credit_thread(struct pt_target *t, struct pt_thread_usage *u, bool count_past)
{
    if (!u->cpu_now)
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
    pt_ledger_credit_thread(&t->ledger, u->comm, user, system, u->ctx_now, voluntary, involuntary);
}

/* The breakdown by thread name: every live member's threads, read now,
 * credited by name. A thread that exits between two reads loses what it
 * did since the first (docs/METRICS.md, "Breakdown"), unless its exit
 * record credits it (exits.c). */
static void sum_thread_groups(struct pt_target *t)
{
    for (size_t i = 0; i < t->n_members; i++) {
        struct pt_member *m = &t->members[i];
        if (m->gone)
            continue;
        enum pt_read r = pt_member_read_thread_usage(m, t->proc_root_fd, &t->buf);
        if (r == PT_READ_NO_FDS)
            t->short_of_fds |= PT_SHORT_COUNTERS;
        if (r != PT_READ_OK && r != PT_READ_NO_FDS)
            continue;
        uint32_t n;
        pt_member_thread_usage(m, 0, &n);
        for (uint32_t k = 0; k < n; k++)
            pt_target_credit_thread(t, pt_member_thread_usage(m, k, &n), m->born || m->usage_sampled);
        m->usage_sampled = true;
    }
    t->threads_read_at = pt_now(); /* after: a thread born since was not read */
}

/* The breakdown's lines: every group in use this interval, each
 * carrying what the catalog puts on its breakdown's lines. */
static void fill_group_reports(struct pt_target *t, double seconds, const struct pt_units *units)
{
    bool keep_base = t->short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS);
    enum pt_lines of = pt_target_by_process(t) ? PT_LINES_BY_PROCESS : PT_LINES_BY_THREAD;
    t->n_group_reports = 0;
    for (uint32_t i = 0; i <= t->ledger.groups.limit; i++) {
        struct pt_group *g = &t->ledger.groups.list[i];
        if (!g->in_use)
            continue;
        struct pt_line line;
        pt_line_init(&line, of, seconds, t->ticks_per_second, t->cpu_percent_max);
        line.gauges = g->gauges;
        line.io_seen = g->io_seen;
        line.stat_seen = g->stat_seen;
        pt_ledger_group_deltas(&t->ledger, i, keep_base, line.delta);
        put_live(&line, g->ctx_seen, g->ctx_voluntary, g->ctx_involuntary, g->fds_seen ? g->fds : -1, g->processes,
                 g->threads);
        struct pt_group_report *r = &t->group_reports[t->n_group_reports++];
        r->name = g->name;
        pt_line_report(&line, units, &r->report);
    }
}

/* Denied files are tried again at this many interval ends: a process
 * may change its credentials without the process events telling (none
 * followed), and then the files it denied answer. */
#define PT_DENIED_RETRY_ROUNDS 30

static void retry_denied(struct pt_target *t)
{
    if (t->ledger.round % PT_DENIED_RETRY_ROUNDS != 0)
        return;
    for (size_t i = 0; i < t->n_members; i++)
        pt_member_forget_denials(&t->members[i]);
}

static struct pt_account *live_account(void *target, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(target, pid);
    return m ? &m->acct : NULL;
}

/* The CPU of the processes the exit records weighed, out of their
 * reapers' folds (exits.c, ledger.h), once the interval's reads and
 * records are in. */
static void share_folds(struct pt_target *t)
{
    pt_ledger_share_folds(&t->ledger, live_account, t);
    for (size_t i = 0; i < t->n_members; i++)
        pt_ledger_folds_given(&t->ledger, &t->members[i].acct);
}

void pt_target_end_reads(struct pt_target *t)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_ledger_next_round(&t->ledger);
    retry_denied(t);
    poll_members(t); /* the last sample of the interval */
    read_all_counters(t, &t->end_threads);
    if (t->options.collect_pss && t->pss_at_end)
        sample_smaps(t);
    if (t->options.collect_ctx_switches)
        sample_ctx_switches(t);
    t->end_fds = t->options.collect_fds ? count_fds(t) : -1;
    pt_target_compact(t);
    t->end_read = true;
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;
}

void pt_target_charge(struct pt_target *t, double cpu_seconds)
{
    t->cpu_seconds += cpu_seconds;
}

void pt_target_end_interval(struct pt_target *t, double seconds, const struct pt_units *units, struct pt_report *report)
{
    if (!t->end_read)
        pt_target_end_reads(t);
    t->end_read = false;
    double cpu0 = pt_thread_cpu_seconds();
    int64_t threads = t->end_threads, fds = t->end_fds;
    share_folds(t);
    if (t->ledger.groups.list && !pt_target_by_process(t))
        sum_thread_groups(t);
    count_members(t);
    int64_t processes = (int64_t)t->n_members;
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;

    t->counter_seconds += seconds;
    fill_report(t, t->counter_seconds, processes, threads, fds, units, report);
    if (t->ledger.groups.list)
        fill_group_reports(t, t->counter_seconds, units);
    if (!(t->short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS)))
        t->counter_seconds = 0;
    leave_out_unknown(t, report);
    t->short_of_fds = 0;

    memset(t->gauges, 0, sizeof(t->gauges));
    t->samples = t->vanished = t->started = t->exited = t->pss_stale = 0;
    t->failed = t->killed = t->rss_peak_kb = t->exit_records = t->exit_record_losses = 0;
    t->exits_complete = true;
    t->cpu_seconds = 0;
    pt_ledger_end_interval(&t->ledger);
}

/* ---- launch mode ------------------------------------------------------ */

void pt_target_final_read(struct pt_target *t, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(t, pid);
    if (!m)
        m = pt_target_join(t, pid, 0, false);
    if (m)
        read_counters(t, m);
}

void pt_target_reaped(struct pt_target *t, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(t, pid);
    if (m)
        pt_target_member_gone(t, m);
}

/* ---- life cycle ------------------------------------------------------- */

int pt_target_init(struct pt_target *t, const char *name, const struct pt_selector *selector,
                   const struct pt_target_options *options, bool pss_at_end, int proc_root_fd,
                   struct pt_fd_budget *budget, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    t->name = pt_xstrdup(name);
    t->selector = *selector;
    t->selector.path = selector->path ? pt_xstrdup(selector->path) : NULL;
    t->selector.value = selector->value ? pt_xstrdup(selector->value) : NULL;
    bool matching = selector->kind >= PT_SELECT_MATCH;
    if (matching && pt_matcher_init(&t->matcher, selector, proc_root_fd, err, errlen) != 0) {
        pt_target_free(t);
        return -1;
    }
    t->has_matcher = matching;
    t->options = *options;
    t->proc_root_fd = proc_root_fd;
    t->budget = budget;
    t->page_size = sysconf(_SC_PAGESIZE);
    t->ticks_per_second = (double)sysconf(_SC_CLK_TCK);
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    t->cpu_percent_max = 100.0 * (double)(cpus > 0 ? cpus : 1);
    t->pss_at_end = pss_at_end;
    t->exits_complete = true;
    t->self = getpid();
    pt_ledger_init(&t->ledger, t->ticks_per_second, options->breakdown != PT_BY_NONE ? options->breakdown_limit : 0,
                   options->breakdown == PT_BY_PROCESS);
    if (options->breakdown != PT_BY_NONE) {
        t->group_reports = pt_xalloc((options->breakdown_limit + 1) * sizeof(*t->group_reports));
    }
    return 0;
}

void pt_target_free(struct pt_target *t)
{
    for (size_t i = 0; i < t->n_members; i++)
        pt_member_close(&t->members[i]);
    free(t->members);
    pt_pidmap_free(&t->index);
    pt_pidmap_free(&t->forked);
    pt_pidmap_free(&t->lately);
    pt_pidmap_free(&t->left);
    pt_pidmap_free(&t->unseen_gone);
    pt_pidmap_free(&t->unjoined_exits);
    free(t->departures);
    pt_buf_free(&t->buf);
    free(t->pending);
    pt_ledger_free(&t->ledger);
    free(t->group_reports);
    free(t->name);
    free((char *)t->selector.path);
    free((char *)t->selector.value);
    if (t->has_matcher)
        pt_matcher_free(&t->matcher);
    memset(t, 0, sizeof(*t));
}
