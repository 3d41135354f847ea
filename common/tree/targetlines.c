/* targetlines: what a target's lines carry beside the ledger's deltas
 * and the gauges (targetlines.h). */
#include "tree/targetlines.h"

#include <assert.h>
#include <string.h>

#include "report/groupkey.h"
#include "tree/exits.h"
#include "tree/targetcg.h"
#include "tree/targetgpu.h"
#include "tree/targetnet.h"
#include "tree/targetnetns.h"

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
            pt_lines_put(line, tc_amounts[k].amount, (double)tc[k] / tc_amounts[k].unit);
    if (fds >= 0) /* -1: not counted */
        pt_lines_put(line, PT_A_FDS, (double)fds);
    pt_lines_put(line, PT_A_PROCESSES, (double)processes);
    if (line->stat_seen)
        pt_lines_put(line, PT_A_THREADS, (double)threads);
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
        in_state[pt_procfs_task_state_of(m->state)]++;
        if (m->starttime < oldest)
            oldest = m->starttime;
    }
    if (t->ledger.stat_seen)
        for (size_t k = 0; k < PT_ARRAY_LEN(counted); k++)
            pt_lines_put(line, counted[k].amount, (double)in_state[counted[k].state]);
    if (oldest == UINT64_MAX)
        return;
    double age = t->interval.ended_boottime - (double)oldest / t->ticks_per_second;
    /* starttime is truncated to a tick: never a negative age */
    pt_lines_put(line, PT_A_OLDEST_AGE, age > 0 ? (double)(int64_t)(age * 100 + 0.5) / 100 : 0);
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

void pt_targetlines_put_tree(const struct pt_target *t, struct pt_line *line, int64_t processes, int64_t threads,
                             int64_t fds)
{
    put_live(line, t->ledger.tc, t->ledger.tc_seen & tcounts_shown(t), fds, processes, threads);
    put_states_and_age(t, line);
    if (t->interval.fd_limit_known) {
        pt_lines_put(line, PT_A_FDS_LIMIT_PERCENT, t->interval.fd_limit_worst_percent);
        pt_lines_put(line, PT_A_FDS_HEADROOM, (double)t->interval.fd_headroom_least);
    }
    if (has_restarts(t))
        pt_lines_put(line, PT_A_RESTARTS, (double)t->interval.restarts);
    pt_lines_put(line, PT_A_STARTED, (double)t->interval.started);
    pt_lines_put(line, PT_A_EXITED, (double)t->interval.exited);
    pt_exits_put(&t->exits, line); /* what the exit records tell */
    pt_lines_put(line, PT_A_SAMPLES, (double)t->interval.samples);
    pt_lines_put(line, PT_A_VANISHED, (double)t->interval.vanished);
    pt_lines_put(line, PT_A_BPF_READS, (double)t->interval.bpf_reads);
    /* thread CPU clocks are not meaningful below a microsecond */
    pt_lines_put(line, PT_A_COLLECTOR_CPU, (double)(int64_t)(pt_interval_line_cpu(&t->interval) * 1e6 + 0.5) / 1e6);
    if (t->options.collect_pss)
        pt_lines_put(line, PT_A_PSS_STALE, (double)t->interval.pss_stale);
    pt_targetgpu_put(&t->gpu, -1, line);
    pt_targetnet_put(&t->net, -1, line);
    pt_udpbytes_put(&t->udp, -1, line);
    pt_targetnetns_put(&t->net.netns, line);
}

void pt_targetlines_groups(const struct pt_target *t, struct pt_ledger *ledger, struct pt_target_group_lines *gl,
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
        pt_lines_init(&line, of, seconds, counter_seconds, t->ticks_per_second, t->cpu_percent_max);
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
        pt_targetnet_put(&t->net, (int32_t)i, &line);
        pt_udpbytes_put(&t->udp, (int32_t)i, &line);
        assert(gl->n <= t->ledger.groups.limit); /* limit + 1 lines */
        struct pt_group_report *r = &gl->reports[gl->n];
        r->name = gl->names ? memcpy(gl->names[gl->n], g->name, sizeof(g->name)) : g->name;
        gl->n++;
        pt_lines_report(&line, units, &r->report);
    }
    /* each line's name unique as the frontends write it, within their cut */
    bool other_last = pt_ledger_group(&t->ledger, t->ledger.groups.limit)->in_use;
    size_t cut = 0, max = t->options.line_name_max, own = strlen(t->name) + 1;
    if (max)
        cut = max > own + 2 * PT_GROUP_KEY_SUFFIX ? max - own : 2 * PT_GROUP_KEY_SUFFIX;
    pt_groupkey_set(gl->reports, gl->n, other_last, cut, gl->keys, gl->folds, gl->order);
}

void pt_targetlines_leave_out_unknown(const struct pt_target *t, struct pt_report *report)
{
    if (!t->interval.short_of_fds)
        return;
    pt_lines_drop_unknown(report, t->interval.short_of_fds);
    for (size_t i = 0; i < t->group_lines.n; i++)
        pt_lines_drop_unknown(&t->group_lines.reports[i].report, t->interval.short_of_fds);
    char what[160];
    pt_lines_short_describe(t->interval.short_of_fds, what, sizeof(what));
    pt_targetstate_logf(t, PT_LOG_ERROR,
                        "out of file descriptors (EMFILE/ENFILE); left out this interval:%s; "
                        "raise the open-files limit (LimitNOFILE=) or lower the descriptor budget",
                        what);
}
