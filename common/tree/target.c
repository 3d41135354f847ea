#include "tree/target.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netlink/eventbook.h"
#include "report/groupkey.h"
#include "accounting/ledgerfolds.h"
#include "proctree/lines.h"
#include "tree/membership.h"
#include "tree/sampling.h"
#include "util/saturate.h"
#include "tree/targetcg.h"
#include "tree/targetgpu.h"
#include "accounting/interval.h"
#include "tree/targetunit.h"
#include "accounting/ledgerrank.h"

const char *pt_target_name(const struct pt_target *t)
{
    return t->name;
}

const char *pt_target_breakdown_key(const struct pt_target *t)
{
    return pt_breakdown_name(t->options.breakdown);
}

struct pt_group_report *pt_target_group_reports(struct pt_target *t, size_t *n)
{
    *n = t->group_lines.n;
    return t->group_lines.reports;
}

pid_t pt_target_launched_pid(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_CHILD ? t->selector.pid : 0;
}

/* This interval's deltas of the tree, every live member counted (after
 * pt_ledger_add_account). Short of descriptors, some member was not read: its
 * work is left for the next interval, which reports it (the base stays). */
static void counter_deltas(const struct pt_target *t, struct pt_ledger *ledger, double seconds,
                           int64_t delta[PT_CTR_COUNT])
{
    pt_ledger_deltas(ledger, t->interval.short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS), seconds, delta);
}

/* What a line reports of the live members, the tree's or a group's: the
 * per-thread counts read (tc_seen bits), descriptors, processes, threads. */
static void put_live(struct pt_line *line, const int64_t tc[PT_TC_COUNT], unsigned tc_seen, int64_t fds,
                     int64_t processes, int64_t threads)
{
    static const struct {
        enum pt_amount amount;
        double unit; /* of the amount, in the count's */
    } tc_amounts[PT_TC_COUNT] = {
        [PT_TC_VOLUNTARY] = {PT_A_CTX_VOLUNTARY, 1},
        [PT_TC_INVOLUNTARY] = {PT_A_CTX_INVOLUNTARY, 1},
        [PT_TC_RUN_DELAY] = {PT_A_CPU_DELAY, 1e9},
        [PT_TC_BLKIO_DELAY] = {PT_A_BLKIO_DELAY, 1e9},
    };
    for (int k = 0; k < PT_TC_COUNT; k++)
        if (tc_seen & (1u << k))
            pt_line_put(line, tc_amounts[k].amount, (double)tc[k] / tc_amounts[k].unit);
    if (fds >= 0) /* -1: not counted */
        pt_line_put(line, PT_A_FDS, (double)fds);
    pt_line_put(line, PT_A_PROCESSES, (double)processes);
    if (line->stat_seen)
        pt_line_put(line, PT_A_THREADS, (double)threads);
}

/* The live members by the state their last stat read showed (zombies are
 * members until reaped, so proc_processes counts them too), and the age of
 * the oldest at the interval's end, the moment its line is stamped with
 * (not when this runs: the reads before it can take tens of milliseconds
 * under load, and the age would pass the line's time): its starttime
 * (clock ticks since boot) against CLOCK_BOOTTIME then, the clock the
 * kernel gives starttime in (a time namespace's, in one). */
static void put_states_and_age(const struct pt_target *t, struct pt_line *line)
{
    static const struct {
        enum pt_task_state state;
        enum pt_amount amount;
    } counted[] = {
        {PT_TS_RUNNING, PT_A_RUNNING},
        {PT_TS_BLOCKED, PT_A_BLOCKED},
        {PT_TS_STOPPED, PT_A_STOPPED},
        {PT_TS_ZOMBIE, PT_A_ZOMBIE},
    };
    int64_t in_state[PT_TS_OTHER + 1] = {0};
    uint64_t oldest = UINT64_MAX;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        const struct pt_member *m = &t->membership.members[i];
        if (m->gone || !m->acct.has_stat)
            continue;
        in_state[pt_task_state_of(m->state)]++;
        if (m->starttime < oldest)
            oldest = m->starttime;
    }
    if (t->ledger.stat_seen)
        for (size_t k = 0; k < PT_ARRAY_LEN(counted); k++)
            pt_line_put(line, counted[k].amount, (double)in_state[counted[k].state]);
    if (oldest == UINT64_MAX)
        return;
    double age = t->interval.ended_boottime - (double)oldest / t->ticks_per_second;
    /* starttime is truncated to a tick: never a negative age */
    pt_line_put(line, PT_A_OLDEST_AGE, age > 0 ? (double)(int64_t)(age * 100 + 0.5) / 100 : 0);
}

/* Which targets have one root that can be replaced (a pinned one never
 * is: 0); those that gather many (a pattern, a glob of units) have none. */
static bool has_restarts(const struct pt_target *t)
{
    switch (t->selector.kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD:
    case PT_SELECT_PIDFILE:
    case PT_SELECT_CGROUP:
        return true;
    case PT_SELECT_UNIT:
        return !pt_matcher_unit(&t->matcher)->glob;
    default:
        return false;
    }
}

/* The per-thread counts shown: the block-I/O delay only when the kernel
 * counted it for the whole interval and tree (blkio_shown). */
static unsigned tcounts_shown(const struct pt_target *t)
{
    return t->interval.blkio_shown ? PT_TC_ALL : PT_TC_ALL & ~(1u << PT_TC_BLKIO_DELAY);
}

/* The tree's line: its amounts, named as the catalog sets metrics from
 * them (catalog.h, lines.h), of an interval of seconds whose counters'
 * deltas span counter_seconds (pt_interval_lasted). */
static void fill_report(const struct pt_target *t, struct pt_ledger *ledger, double seconds, double counter_seconds,
                        int64_t processes, int64_t threads, int64_t fds, const struct pt_cgvalues *cgroups,
                        const struct pt_units *units, struct pt_report *report)
{
    struct pt_line line;
    pt_line_init(&line, PT_LINES_ONE, seconds, counter_seconds, t->ticks_per_second, t->cpu_percent_max);
    line.cgroup = cgroups;
    struct pt_extrema gauges[PT_G_COUNT];
    memcpy(gauges, t->interval.gauges, sizeof(gauges));
    gauges[PT_G_GPU] = pt_targetgpu_memory(&t->gpu, -1);
    line.gauges = gauges;
    line.io_seen = t->ledger.io_seen;
    counter_deltas(t, ledger, counter_seconds, line.delta); /* first: CPU left from the last line is seen */
    line.stat_seen = t->ledger.stat_seen;
    put_live(&line, t->ledger.tc, t->ledger.tc_seen & tcounts_shown(t), fds, processes, threads);
    put_states_and_age(t, &line);
    if (t->interval.fd_limit_known) {
        pt_line_put(&line, PT_A_FDS_LIMIT_PERCENT, t->interval.fd_limit_worst_percent);
        pt_line_put(&line, PT_A_FDS_HEADROOM, (double)t->interval.fd_headroom_least);
    }
    if (has_restarts(t))
        pt_line_put(&line, PT_A_RESTARTS, (double)t->interval.restarts);
    pt_line_put(&line, PT_A_STARTED, (double)t->interval.started);
    pt_line_put(&line, PT_A_EXITED, (double)t->interval.exited);
    pt_exits_put(&t->exits, &line); /* what the exit records tell */
    pt_line_put(&line, PT_A_SAMPLES, (double)t->interval.samples);
    pt_line_put(&line, PT_A_VANISHED, (double)t->interval.vanished);
    pt_line_put(&line, PT_A_BPF_READS, (double)t->interval.bpf_reads);
    /* thread CPU clocks are not meaningful below a microsecond */
    pt_line_put(&line, PT_A_COLLECTOR_CPU, (double)(int64_t)(t->interval.cpu_seconds * 1e6 + 0.5) / 1e6);
    if (t->options.collect_pss)
        pt_line_put(&line, PT_A_PSS_STALE, (double)t->interval.pss_stale);
    pt_targetgpu_put(&t->gpu, -1, &line);
    pt_line_report(&line, units, report);
}

/* Short of descriptors: leave out what was not read whole, and say so in
 * one line per interval. */
static void leave_out_unknown(const struct pt_target *t, struct pt_report *report)
{
    if (!t->interval.short_of_fds)
        return;
    pt_line_drop_unknown(report, t->interval.short_of_fds);
    for (size_t i = 0; i < t->group_lines.n; i++)
        pt_line_drop_unknown(&t->group_lines.reports[i].report, t->interval.short_of_fds);
    char what[160];
    pt_short_describe(t->interval.short_of_fds, what, sizeof(what));
    pt_target_logf(t, PT_LOG_ERROR,
                   "out of file descriptors (EMFILE/ENFILE); left out this interval:%s; "
                   "raise the open-files limit (LimitNOFILE=) or lower the descriptor budget",
                   what);
}

/* Every live member counted into the tree's sums, and into its group's
 * once it is in its name's group; then the baseline for debts taken from
 * now on. Returns the tree's threads, counted here with the groups': a
 * child that joined from its exit record after the last reads is a
 * process of both, its thread too. */
static int64_t count_members(const struct pt_target *t, struct pt_ledger *ledger)
{
    int64_t threads = 0;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (m->gone)
            continue;
        if (pt_target_partitions(t)) {
            pt_membership_follow_name(t, ledger, m);
            pt_ledger_seen(ledger, &m->acct);
            /* its last poll's resident memory (a gone member's is not polled) */
            uint64_t page = (uint64_t)t->page_size, pages = m->has_statm ? m->statm.resident : 0;
            int64_t rss = pages > (uint64_t)INT64_MAX / page ? INT64_MAX : (int64_t)(pages * page);
            pt_ledger_rank_account(ledger, &m->acct, pt_membership_group_name(t, m), rss);
        }
        pt_ledger_add_account(ledger, &m->acct, m->num_threads);
        pt_ledger_snapshot(ledger, &m->acct);
        if (m->acct.has_stat) /* as its group counts it */
            threads = pt_sat_add(threads, m->num_threads);
    }
    return threads;
}

/* The breakdown's lines: every group in use this interval, each
 * carrying what the catalog puts on its breakdown's lines. */
static void fill_group_reports(const struct pt_target *t, struct pt_ledger *ledger, struct pt_target_group_lines *gl,
                               double seconds, double counter_seconds, const struct pt_units *units)
{
    bool keep_base = t->interval.short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS);
    /* a cgroup's line carries what a process name's does, and its own
     * cgroup's accounting */
    enum pt_lines of = t->options.breakdown == PT_BY_THREAD   ? PT_LINES_BY_THREAD
                       : t->options.breakdown == PT_BY_CGROUP ? PT_LINES_BY_PROCESS | PT_LINES_BY_CGROUP
                                                              : PT_LINES_BY_PROCESS;
    gl->n = 0;
    for (uint32_t i = 0; i <= t->ledger.groups.limit; i++) {
        const struct pt_group *g = pt_ledger_group(&t->ledger, i);
        if (!g->in_use)
            continue;
        struct pt_line line;
        pt_line_init(&line, of, seconds, counter_seconds, t->ticks_per_second, t->cpu_percent_max);
        struct pt_extrema gauges[PT_G_COUNT];
        memcpy(gauges, g->gauges, sizeof(gauges));
        gauges[PT_G_GPU] = pt_targetgpu_memory(&t->gpu, (int32_t)i);
        line.gauges = gauges;
        line.io_seen = g->io_seen;
        line.cgroup = pt_targetcg_values(t, g->name);
        pt_ledger_group_deltas(ledger, i, keep_base, line.delta);
        line.stat_seen = g->stat_seen;
        put_live(&line, g->tc, g->tc_seen & tcounts_shown(t), g->fds_seen ? g->fds : -1, g->processes, g->threads);
        pt_targetgpu_put(&t->gpu, (int32_t)i, &line);
        assert(gl->n <= t->ledger.groups.limit); /* limit + 1 lines */
        struct pt_group_report *r = &gl->reports[gl->n];
        r->name = gl->names ? memcpy(gl->names[gl->n], g->name, sizeof(g->name)) : g->name;
        gl->n++;
        pt_line_report(&line, units, &r->report);
    }
    /* each line's name unique as the frontends write it, within their cut */
    bool other_last = pt_ledger_group(&t->ledger, t->ledger.groups.limit)->in_use;
    size_t cut = 0, max = t->options.line_name_max, own = strlen(t->name) + 1;
    if (max)
        cut = max > own + 2 * PT_GROUP_KEY_SUFFIX ? max - own : 2 * PT_GROUP_KEY_SUFFIX;
    pt_group_keys(gl->reports, gl->n, other_last, cut, gl->keys, gl->folds, gl->order);
}

/* --by-rank: the next interval's names chosen from this one's weights,
 * every live member following its group or its name (ledger.h), and
 * every departed one whose records are still to come its group (by
 * cgroup they settle in it by its index). */
static void rank_groups(const struct pt_target *t, struct pt_ledger *ledger, struct pt_departures *departures)
{
    if (!pt_ledger_ranks(ledger))
        return;
    pt_ledger_rank_choose(ledger);
    if (!pt_target_partitions(t))
        return;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (!m->gone)
            pt_ledger_rank_follow(ledger, &m->acct, pt_membership_group_name(t, m));
    }
    for (size_t i = 0; i < departures->n; i++)
        departures->list[i].group = pt_ledger_rank_regrouped(ledger, departures->list[i].group);
}

static struct pt_account *live_account(const void *target, pid_t pid)
{
    struct pt_member *m = pt_target_live_member(target, pid);
    return m ? &m->acct : NULL;
}

/* The CPU of the processes the exit records weighed, out of their
 * reapers' folds (exits.c, ledger.h), once the interval's reads and
 * records are in. */
static void share_folds(const struct pt_target *t, struct pt_ledger *ledger)
{
    pt_ledger_share_folds(ledger, live_account, t);
    for (size_t i = 0; i < t->membership.n_members; i++)
        pt_ledger_folds_given(ledger, &t->membership.members[i].acct);
}

void pt_target_set_taskiter(struct pt_target *t, struct pt_taskiter *it)
{
    t->taskiter = it;
}

void pt_target_set_self(struct pt_target *t, pid_t self)
{
    t->self = self;
    t->proc_root_ours = self == getpid();
}

/* ---- the parts handed down -------------------------------------------- */

/* The parts a change of membership writes (membership.h): every function
 * below is handed the parts it writes, and the target to read. */
static struct pt_membership_parts membership_parts(struct pt_target *t)
{
    return (struct pt_membership_parts){
        .list = &t->membership,
        .departures = &t->departures,
        .ledger = &t->ledger,
        .interval = &t->interval,
        .events = &t->events,
        .warned_denied = &t->warned_denied,
    };
}

void pt_target_charge(struct pt_target *t, double cpu_seconds)
{
    pt_interval_add_cpu(&t->interval, cpu_seconds);
}

void pt_target_offer_root(struct pt_target *t, pid_t pid)
{
    pt_discovery_offer_root(&t->discovery, pid);
}

void pt_target_discover(struct pt_target *t, double now)
{
    struct pt_membership_parts mp = membership_parts(t);
    const struct pt_discovery_parts dp = {
        .mp = &mp,
        .d = &t->discovery,
        .matcher = &t->matcher,
        .cg = &t->cg,
        .unit = &t->unit,
        .stops = &t->stops,
    };
    pt_discovery_run(t, &dp, now);
}

void pt_target_events_listened(struct pt_target *t)
{
    pt_eventbook_listened(&t->events);
}

void pt_target_follow_events(struct pt_target *t, const struct pt_procevent *events, size_t n, bool complete)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_targetevents_follow(t, &mp, &t->exits, events, n, complete);
}

void pt_target_follow_exits(struct pt_target *t, const struct pt_exitrecord *records, size_t n, bool complete)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_exits_follow(t, &t->exits, &mp, records, n, complete);
}

void pt_target_stop_exits(struct pt_target *t)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_exits_stop(t, &t->exits, &mp);
}

void pt_target_poll(struct pt_target *t)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_sampling_poll(t, &mp, &t->cg);
}

void pt_target_sample_pss(struct pt_target *t)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_sampling_pss(t, &mp, &t->sampling);
}

void pt_target_end_reads(struct pt_target *t, double now, double boottime, double blkio_since)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_sampling_end_reads(t, &mp, &t->sampling, &t->cg, now, boottime, blkio_since);
}

void pt_target_gpu_sample(struct pt_target *t, const struct pt_gpu *g)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_targetgpu_sample(t, &t->gpu, g);
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
}

void pt_target_gpu_end_reads(struct pt_target *t, const struct pt_gpu *g)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_targetgpu_end_reads(t, &t->gpu, g);
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
}

void pt_target_end_interval(struct pt_target *t, double seconds, const struct pt_units *units, struct pt_report *report)
{
    if (!t->interval.end_read) /* a caller without a collector: its clocks, no delayacct */
        pt_target_end_reads(t, pt_now(), pt_boottime(), NAN);
    double cpu0 = pt_thread_cpu_seconds();
    int64_t fds = t->interval.end_fds;
    share_folds(t, &t->ledger);
    if (t->ledger.groups.list && !pt_target_partitions(t)) {
        struct pt_membership_parts mp = membership_parts(t);
        pt_sampling_read_threads(t, &mp, &t->sampling);
    }
    int64_t threads = count_members(t, &t->ledger);
    int64_t processes = (int64_t)t->membership.n_members;
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);

    double counter_seconds = pt_interval_lasted(&t->interval, seconds);
    const struct pt_cgvalues *cgroups = pt_targetcg_end(t, &t->cg, seconds);
    fill_report(t, &t->ledger, seconds, counter_seconds, processes, threads, fds, cgroups, units, report);
    if (t->ledger.groups.list)
        fill_group_reports(t, &t->ledger, &t->group_lines, seconds, counter_seconds, units);
    leave_out_unknown(t, report);
    pt_interval_end(&t->interval);
    pt_targetgpu_end_interval(&t->gpu);
    pt_exits_end_interval(&t->exits);
    pt_ledger_end_interval(&t->ledger);
    rank_groups(t, &t->ledger, &t->departures);
    pt_target_debug_check(t, "the interval's end");
}

/* ---- launch mode ------------------------------------------------------ */

void pt_target_final_read(struct pt_target *t, pid_t pid)
{
    struct pt_membership_parts mp = membership_parts(t);
    struct pt_member *m = pt_target_live_member(t, pid);
    if (!m)
        m = pt_membership_join(t, &mp, pid, 0, false);
    if (m)
        pt_membership_read_counters(t, &mp, m);
}

void pt_target_reaped(struct pt_target *t, pid_t pid)
{
    struct pt_membership_parts mp = membership_parts(t);
    struct pt_member *m = pt_target_live_member(t, pid);
    if (m)
        pt_membership_member_gone(t, &mp, m);
}

/* ---- life cycle ------------------------------------------------------- */

int pt_target_init(struct pt_target *t, const char *name, const struct pt_selector *selector,
                   const struct pt_target_options *options, bool pss_at_end, int proc_root_fd, const char *sys_root,
                   struct pt_fd_budget *budget, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    t->buf = pt_xalloc(sizeof(*t->buf));
    t->name = pt_xstrdup(name);
    t->selector = *selector;
    t->selector.path = selector->path ? pt_xstrdup(selector->path) : NULL;
    t->selector.value = selector->value ? pt_xstrdup(selector->value) : NULL;
    if (options->breakdown == PT_BY_CGROUP && selector->kind != PT_SELECT_CGROUP && selector->kind != PT_SELECT_UNIT) {
        snprintf(err, errlen, "a breakdown by cgroup needs a cgroup or unit target");
        pt_target_free(t);
        return -1;
    }
    /* a thread's line has its CPU alone */
    if (options->breakdown == PT_BY_THREAD && options->breakdown_rank != PT_RANK_SEEN &&
        options->breakdown_rank != PT_RANK_CPU) {
        snprintf(err, errlen, "a breakdown by thread is not ranked by %s (cpu or seen only)",
                 pt_rank_name(options->breakdown_rank));
        pt_target_free(t);
        return -1;
    }
    if (options->title_pattern && options->breakdown != PT_BY_TITLE) {
        snprintf(err, errlen, "a title pattern needs a breakdown by title");
        pt_target_free(t);
        return -1;
    }
    if (options->breakdown == PT_BY_TITLE && pt_titlegroup_init(&t->titles, options->title_pattern, err, errlen) != 0) {
        pt_target_free(t);
        return -1;
    }
    bool matching = selector->kind >= PT_SELECT_MATCH;
    if (matching && pt_matcher_init(&t->matcher, selector, proc_root_fd, sys_root, err, errlen) != 0) {
        pt_target_free(t);
        return -1;
    }
    t->has_matcher = matching;
    t->options = *options;
    t->options.title_pattern = NULL; /* the caller's: compiled above, not kept */
    t->budget = budget;              /* before the cgroups, whose kept descriptors it counts */
    if (matching)
        pt_matcher_set_budget(&t->matcher, budget); /* and the kept sub-cgroups' (cgscan.h) */
    bool own_cgroup = selector->kind == PT_SELECT_CHILD && selector->path && selector->cgroupfs;
    if (options->collect_cgroup &&
        (selector->kind == PT_SELECT_CGROUP || selector->kind == PT_SELECT_UNIT || own_cgroup))
        pt_targetcg_init(t, &t->cg);
    t->selector.cgroupfs = NULL; /* the launcher's: read above, not kept */
    t->selector.cgroup_never = NULL;
    t->proc_root_fd = proc_root_fd;
    t->page_size = sysconf(_SC_PAGESIZE);
    t->ticks_per_second = (double)sysconf(_SC_CLK_TCK);
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    t->cpu_percent_max = 100.0 * (double)(cpus > 0 ? cpus : 1);
    /* what an interval's CPU is bounded by (ledger.h): the CPUs online,
     * where any member can run (its affinity and cpuset can change at any
     * time); the configured ones where that is unknown */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    t->pss_at_end = pss_at_end;
    t->self = getpid();
    t->proc_root_ours = true;
    t->sys_root_default = strcmp(sys_root, "/sys") == 0;
    pt_ledger_init(&t->ledger, t->ticks_per_second,
                   (unsigned)(online > 0 ? online
                              : cpus > 0 ? cpus
                                         : 1),
                   options->breakdown != PT_BY_NONE ? options->breakdown_limit : 0, pt_target_partitions(t));
    if (options->breakdown != PT_BY_NONE) {
        pt_ledger_set_rank(&t->ledger, options->breakdown_rank);
        size_t lines = options->breakdown_limit + 1;
        t->group_lines.reports = pt_xalloc(lines * sizeof(*t->group_lines.reports));
        t->group_lines.keys = pt_xalloc(lines * sizeof(*t->group_lines.keys));
        t->group_lines.folds = pt_xalloc(lines * sizeof(*t->group_lines.folds));
        t->group_lines.order = pt_xalloc(lines * sizeof(*t->group_lines.order));
        if (options->breakdown_rank != PT_RANK_SEEN)
            t->group_lines.names = pt_xalloc(lines * sizeof(*t->group_lines.names));
    }
    return 0;
}

void pt_target_free(struct pt_target *t)
{
    struct pt_membership_parts mp = membership_parts(t);
    pt_membership_free(&mp);
    pt_eventbook_free(&t->events);
    pt_exits_free(&t->exits);
    if (t->buf)
        pt_buf_free(t->buf);
    free(t->buf);
    pt_discovery_free(&t->discovery);
    pt_ledger_free(&t->ledger);
    free(t->group_lines.reports);
    free(t->group_lines.keys);
    free(t->group_lines.folds);
    free(t->group_lines.order);
    free(t->group_lines.names);
    free(t->name);
    free((char *)t->selector.path);
    free((char *)t->selector.value);
    if (t->has_matcher)
        pt_matcher_free(&t->matcher);
    pt_titlegroup_free(&t->titles);
    pt_targetcg_free(&t->cg);
    pt_targetunit_free(&t->unit);
    pt_targetgpu_free(&t->gpu);
    memset(t, 0, sizeof(*t));
}
