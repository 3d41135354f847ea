#include "tree/target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netlink/eventbook.h"
#include "accounting/ledgerfolds.h"
#include "report/lines.h"
#include "tree/membership.h"
#include "tree/sampling.h"
#include "util/saturate.h"
#include "tree/targetcg.h"
#include "tree/targetgpu.h"
#include "tree/targetlines.h"
#include "tree/targetnet.h"
#include "tree/targetudp.h"
#include "accounting/interval.h"
#include "tree/targetunit.h"
#include "accounting/ledgerrank.h"

const char *pt_target_name(const struct pt_target *t)
{
    return t->name;
}

const char *pt_target_breakdown_key(const struct pt_target *t)
{
    return pt_selector_breakdown_name(t->options.breakdown);
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
static void tree_deltas(const struct pt_target *t, struct pt_ledger *ledger, double seconds,
                        int64_t delta[PT_CTR_COUNT])
{
    pt_ledger_deltas(ledger, t->interval.short_of_fds & (PT_SHORT_COUNTERS | PT_SHORT_MEMBERS), seconds, delta);
}

/* The tree's line: its amounts, named as the catalog sets metrics from
 * them (catalog.h, lines.h), of an interval of seconds whose counters'
 * deltas span counter_seconds (pt_interval_lasted). */
static void fill_report(const struct pt_target *t, struct pt_ledger *ledger, double seconds, double counter_seconds,
                        int64_t processes, int64_t threads, int64_t fds, const struct pt_cgvalues *cgroups,
                        const struct pt_units *units, struct pt_report *report)
{
    struct pt_line line;
    pt_lines_init(&line, PT_LINES_ONE, seconds, counter_seconds, t->ticks_per_second, t->cpu_percent_max);
    line.cgroup = cgroups;
    line.gauges = t->interval.gauges; /* the GPU's too (pt_interval_set_gpu) */
    line.io_seen = t->ledger.io_seen;
    tree_deltas(t, ledger, counter_seconds, line.delta); /* first: CPU left from the last line is seen */
    line.stat_seen = t->ledger.stat_seen;
    pt_targetlines_put_tree(t, &line, processes, threads, fds);
    pt_lines_report(&line, units, report);
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
            pt_ledgerrank_account(ledger, &m->acct, pt_membership_group_name(t, m), rss);
        }
        pt_ledger_add_account(ledger, &m->acct, m->num_threads);
        pt_ledger_snapshot(ledger, &m->acct);
        if (m->acct.has_stat) /* as its group counts it */
            threads = pt_sat_add(threads, m->num_threads);
    }
    return threads;
}

/* --by-rank: the next interval's names chosen from this one's weights,
 * every live member following its group or its name (ledger.h), and
 * every departed one whose records are still to come its group (by
 * cgroup they settle in it by its index). */
static void rank_groups(const struct pt_target *t, struct pt_ledger *ledger, struct pt_departures *departures)
{
    if (!pt_ledger_ranks(ledger))
        return;
    pt_ledgerrank_choose(ledger);
    if (!pt_target_partitions(t))
        return;
    for (size_t i = 0; i < t->membership.n_members; i++) {
        struct pt_member *m = &t->membership.members[i];
        if (!m->gone)
            pt_ledgerrank_follow(ledger, &m->acct, pt_membership_group_name(t, m));
    }
    for (size_t i = 0; i < departures->n; i++)
        departures->list[i].group = pt_ledgerrank_regrouped(ledger, departures->list[i].group);
}

static struct pt_account *live_account(const void *target, pid_t pid)
{
    struct pt_member *m = pt_targetstate_live_member(target, pid);
    return m ? &m->acct : NULL;
}

/* The CPU of the processes the exit records weighed, out of their
 * reapers' folds (exits.c, ledger.h), once the interval's reads and
 * records are in. */
static void share_folds(const struct pt_target *t, struct pt_ledger *ledger)
{
    pt_ledgerfolds_share(ledger, live_account, t);
    for (size_t i = 0; i < t->membership.n_members; i++)
        pt_ledgerfolds_given(ledger, &t->membership.members[i].acct);
}

void pt_target_set_taskiter(struct pt_target *t, struct pt_taskiter *it)
{
    t->taskiter = it;
}

void pt_target_set_udp(struct pt_target *t, const struct pt_udpcount *counts)
{
    pt_targetudp_start(t, &t->udp, counts);
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
        .udp = &t->udp,
    };
}

void pt_target_charge(struct pt_target *t, double cpu_seconds)
{
    pt_interval_add_cpu(&t->interval, cpu_seconds);
}

void pt_target_close_cpu(struct pt_target *t)
{
    pt_interval_close_cpu(&t->interval);
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
    pt_targetevents_follow(t, &t->exits, &mp, events, n, complete);
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
    bool was_read = pt_sampling_begin_end_reads(t, &mp, &t->cg, boottime, blkio_since);
    pt_membership_read_all_counters(t, &mp);
    pt_sampling_finish_end_reads(t, &mp, &t->sampling, now, blkio_since, was_read);
}

void pt_target_gpu_sample(struct pt_target *t, const struct pt_gpu *g)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_targetgpu_sample(t, &t->gpu, g);
    pt_interval_set_gpu(&t->interval, pt_targetgpu_memory(&t->gpu, -1));
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
}

void pt_target_gpu_end_reads(struct pt_target *t, const struct pt_gpu *g)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_targetgpu_end_reads(t, &t->gpu, g);
    pt_interval_set_gpu(&t->interval, pt_targetgpu_memory(&t->gpu, -1));
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
}

bool pt_target_net_walk(struct pt_target *t, bool whole)
{
    if (!t->options.collect_net)
        return false;
    double cpu0 = pt_thread_cpu_seconds();
    bool fresh = pt_targetnet_walk(t, &t->net, whole);
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
    return fresh;
}

bool pt_target_net_holds(const struct pt_target *t)
{
    return pt_targetnet_holds(&t->net) && !t->net.passed;
}

bool pt_target_net_take_pass(struct pt_target *t)
{
    pt_targetnet_take_pass(t, &t->net);
    return t->net.passed;
}

void pt_target_net_dump(struct pt_target *t)
{
    if (!t->net.passed) /* its dump was the BPF pass's */
        pt_targetnet_dump(&t->net);
}

void pt_target_net_take(struct pt_target *t, const struct pt_tcpsock *s)
{
    pt_targetnet_take(&t->net, s);
}

void pt_target_net_destroyed(struct pt_target *t, const struct pt_tcpsock *s)
{
    pt_targetnet_destroyed(&t->net, s);
}

void pt_target_net_sweep(struct pt_target *t)
{
    pt_targetnet_sweep(&t->net);
}

void pt_target_udp_take(struct pt_target *t)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_targetudp_take(t, &t->membership, &t->udp);
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
        pt_targetlines_groups(t, &t->ledger, &t->group_lines, seconds, counter_seconds, units);
    pt_targetlines_leave_out_unknown(t, report);
    pt_interval_end(&t->interval);
    pt_targetgpu_end_interval(&t->gpu);
    pt_targetnet_end_interval(&t->net);
    pt_udpbytes_end_interval(&t->udp);
    pt_exits_end_interval(&t->exits);
    pt_ledger_end_interval(&t->ledger);
    rank_groups(t, &t->ledger, &t->departures);
    pt_targetstate_debug_check(t, "the interval's end");
}

/* ---- launch mode ------------------------------------------------------ */

void pt_target_final_read(struct pt_target *t, pid_t pid)
{
    struct pt_membership_parts mp = membership_parts(t);
    struct pt_member *m = pt_targetstate_live_member(t, pid);
    if (!m)
        m = pt_membership_join(t, &mp, pid, 0, false);
    if (m)
        pt_membership_read_counters(t, &mp, m);
}

void pt_target_reaped(struct pt_target *t, pid_t pid)
{
    struct pt_membership_parts mp = membership_parts(t);
    struct pt_member *m = pt_targetstate_live_member(t, pid);
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
        pt_ledgerrank_set(&t->ledger, options->breakdown_rank);
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
    pt_targetnet_free(&t->net);
    pt_udpbytes_free(&t->udp);
    memset(t, 0, sizeof(*t));
}
