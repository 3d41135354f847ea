/* collectortick: what is due when, and the interval's end. */
#include "proctree/collectortick.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/collectorstate.h"
#include "collector/collectorudp.h"
#include "collector/listeners.h"
#include "procfs/caps.h"
#include "accounting/interval.h"
#include "tree/targetgpu.h"

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* NVML's processes again (with busy: and its samples since the last
 * end), the cost shared out evenly between the targets as the drains'
 * is; nothing where the host has no NVIDIA GPU. */
static void gpu_refresh(struct pt_collector *c, bool busy)
{
    if (!c->gpu.nvml_on || c->n_targets == 0)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    pt_gpu_refresh(&c->gpu, busy);
    double share = (pt_thread_cpu_seconds() - cpu0) / (double)c->n_targets;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_charge(&c->targets[i], share);
}

static void discover(struct pt_collector *c, double now)
{
    pt_procscan_run(&c->scan, c->targets, c->n_targets, c->events.fd >= 0);
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_discover(&c->targets[i], now);
    if (c->gpu.nvml_on) { /* GPU memory at the discovery's cadence (gpu.h) */
        gpu_refresh(c, false);
        for (size_t i = 0; i < c->n_targets; i++)
            pt_target_gpu_sample(&c->targets[i], &c->gpu);
    }
}

/* ---- TCP sockets (targetnet.h) ---------------------------------------- */

static bool any_net(const struct pt_collector *c)
{
    for (size_t i = 0; i < c->n_targets; i++)
        if (c->targets[i].options.collect_net)
            return true;
    return false;
}

/* The dump socket and the destroy notifications, at the first tick,
 * where a target follows TCP sockets; each failure said in one line. */
static void net_open(struct pt_collector *c)
{
    if (c->n_targets == 0 || !any_net(c))
        return;
    int err = pt_sockdiag_open(&c->sockdiag);
    if (err < 0) {
        pt_logf(PT_LOG_WARNING, "network: sock_diag cannot be opened (%s): proc_net_tcp_* are left out",
                strerror(-err));
        return;
    }
    c->net_on = true;
    err = pt_sockdiag_listen(&c->sockdiag);
    if (err == 0)
        return;
    /* said as the exit records' refusal is: an I! line, what is lost and
     * why (Linux 6.18 lets any user join; a kernel may want CAP_NET_ADMIN) */
    char why[320] = "", text[256];
    if (err == -EPERM) {
        const char *missing = pt_caps_why_missing(pt_caps_current(), PT_CAP_NET_ADMIN, text, sizeof(text));
        snprintf(why, sizeof(why), ": this kernel wants CAP_NET_ADMIN%s%s", missing ? " and missing: " : "",
                 missing ? missing : "");
    }
    pt_logf(PT_LOG_INFO,
            "no TCP destroy notifications (sock_diag: %s%s): the bytes a connection moves after the last dump "
            "that read it, before it closes, are not counted in proc_net_tcp_*_bytes",
            strerror(-err), why);
}

static void take_socket(const struct pt_tcpsock *s, void *arg)
{
    struct pt_collector *c = arg;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_net_take(&c->targets[i], s);
}

static void take_destroyed(const struct pt_tcpsock *s, void *arg)
{
    struct pt_collector *c = arg;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_net_destroyed(&c->targets[i], s);
}

/* The destroy notifications queued, then (dump) one dump of the host's
 * TCP sockets for every target; their CPU shared out evenly. */
static void net_read(struct pt_collector *c, bool dump)
{
    double cpu0 = pt_thread_cpu_seconds();
    char tail[96];
    if (pt_sockdiag_drain(&c->sockdiag, take_destroyed, c) == -ENOBUFS &&
        pt_ratelimit_say(&c->net_loss_said, pt_now(), "losses", tail, sizeof(tail)))
        pt_logf(PT_LOG_WARNING,
                "network: TCP destroy notifications were lost (their socket's buffer overflowed): the last bytes of "
                "some closed connections are not counted%s",
                tail);
    if (dump) {
        bool held = false; /* by no target: the kernel's dump would give nothing to take */
        for (size_t i = 0; i < c->n_targets; i++) {
            held |= pt_target_net_holds(&c->targets[i]);
            pt_target_net_dump(&c->targets[i]);
        }
        int err = held ? pt_sockdiag_dump(&c->sockdiag, take_socket, c) : 0;
        if (err < 0 && pt_ratelimit_say(&c->net_loss_said, pt_now(), "losses", tail, sizeof(tail)))
            pt_logf(PT_LOG_WARNING, "network: a dump of the TCP sockets failed (%s)%s", strerror(-err), tail);
    }
    double share = (pt_thread_cpu_seconds() - cpu0) / (double)c->n_targets;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_charge(&c->targets[i], share);
}

/* A poll: the notifications, the holders' descriptors walked, and a dump
 * when a walk found a socket new to a target. */
static void net_poll(struct pt_collector *c)
{
    if (!c->net_on)
        return;
    bool fresh = false;
    for (size_t i = 0; i < c->n_targets; i++)
        fresh |= pt_target_net_walk(&c->targets[i], false);
    net_read(c, fresh);
}

/* The interval's end: every member's descriptors walked, one dump, the
 * sockets neither saw forgotten. */
static void net_end(struct pt_collector *c)
{
    if (!c->net_on)
        return;
    for (size_t i = 0; i < c->n_targets; i++) {
        pt_target_net_walk(&c->targets[i], true);
        pt_target_net_take_pass(&c->targets[i]);
    }
    net_read(c, true);
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_net_sweep(&c->targets[i]);
}

/* Say once that the descriptor budget is spent (fdbudget.h). */
static void note_budget(struct pt_collector *c)
{
    if (!c->fd_budget.reached || c->said_budget)
        return;
    c->said_budget = true;
    pt_logf(PT_LOG_WARNING,
            "descriptor budget reached: %zu /proc and cgroup files kept open; the others are opened and closed "
            "at each read (slower, same numbers; a cgroup whose memory.peak is not kept reports its lifetime "
            "peak, cgroup_memory_peak_lifetime, not the interval's)",
            c->fd_budget.limit);
}

/* Move a cadence's deadline *due (now >= *due) one period on; when that
 * is still not after now, we were late: one period after now, not a
 * burst to catch up. The period is PT_DURATION_MIN_MS at least, the
 * finest the option table lets a user give (a library caller may pass
 * less). The deadline always ends after now: where now is so large that
 * the period is lost to rounding (1 ns past 2^24 s of uptime), the step
 * grows until it is not, for a deadline not after now would make a
 * frontend spin. */
static void advance(double *due, double now, double period)
{
    double step = period > PT_DURATION_MIN_MS / 1000.0 ? period : PT_DURATION_MIN_MS / 1000.0;
    *due += step;
    for (; !(*due > now) && isfinite(now); step *= 2)
        *due = now + step;
}

double pt_collector_tick(struct pt_collector *c, double now)
{
    bool first = !c->started;
    if (first) {
        c->started = true;
        if (c->source_line[0])
            pt_logf(PT_LOG_INFO, "%s", c->source_line);
        c->next_poll = c->next_discovery = c->interval_start = c->next_pss = now;
        advance(&c->next_pss, now, c->config.pss_interval);
        pt_gpu_probe(&c->gpu, c->proc_root, c->sys_root, "/dev", NULL);
        net_open(c);
        pt_collector_udp_start(c);
        /* where no target follows TCP sockets (--no-net, or sock_diag
         * missing), the BPF pass's reads of the members' would be for
         * nothing: it lists none */
        if (c->taskiter)
            pt_taskiter_list_sockets(c->taskiter, c->net_on);
        /* open before the first discovery, which walks /proc only without
         * them; drained after it: the events of a launched command that
         * waited since pt_collector_listen need it a member to be followed */
        if (c->n_targets > 0)
            pt_collector_open_listeners(c);
    } else {
        pt_collector_follow_events(c);
    }
    if (now >= c->next_discovery) {
        discover(c, now);
        advance(&c->next_discovery, now, c->config.discovery_interval);
    }
    if (first)
        pt_collector_follow_events(c);
    if (now >= c->next_poll) {
        for (size_t i = 0; i < c->n_targets; i++)
            pt_target_poll(&c->targets[i]);
        if (c->have_global)
            pt_sysmem_poll(&c->global);
        net_poll(c);
        advance(&c->next_poll, now, c->config.poll_interval);
    }
    double next = c->next_poll < c->next_discovery ? c->next_poll : c->next_discovery;
    if (c->config.pss_interval > 0) {
        if (now >= c->next_pss) {
            for (size_t i = 0; i < c->n_targets; i++)
                pt_target_sample_pss(&c->targets[i]);
            advance(&c->next_pss, now, c->config.pss_interval);
        }
        if (c->next_pss < next)
            next = c->next_pss;
    }
    /* after the polls: the folds they read are there for the records'
     * CPU to be shared out of (exits.c) */
    pt_collector_follow_exits(c);
    note_budget(c);
    assert(next > now); /* advance() made sure of it for every finite now */
    return next;
}

void pt_collector_listen(struct pt_collector *c)
{
    pt_collector_open_listeners(c);
}

/* Built with check_invariants: the totals' invariants (totals.h) after
 * each batch, aborting with the broken one's line; else nothing. */
static void check_totals(const struct pt_totals *t, const char *whose)
{
#ifdef PT_CHECK_INVARIANTS
    char why[200];
    if (pt_totals_check(t, why, sizeof(why)) != 0) {
        pt_logf(PT_LOG_ERROR, "totals of %s: invariant broken: %s", whose, why);
        abort();
    }
#else
    (void)t;
    (void)whose;
#endif
}

const struct pt_batch *pt_collector_end_interval(struct pt_collector *c, double now)
{
    if (!c->started)
        pt_collector_tick(c, now);
    struct pt_batch *b = &c->batch;
    b->timestamp_ns = realtime_ns();
    double boottime = pt_boottime(); /* the same moment: the oldest member's age is at the line's time */
    b->n_targets = c->n_targets;
    b->targets = c->results;
    /* the frontends pass CLOCK_MONOTONIC (collector.h): an interval never
     * ends before it started */
    assert(c->started && now >= c->interval_start);
    double seconds = now - c->interval_start;
    b->seconds = seconds;
    c->interval_start = now;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_close_cpu(&c->targets[i]);
    pt_collector_follow_events(c); /* a process forked since the last tick is a member of this interval */
    double blkio_since = pt_delayacct_on(&c->delayacct, now) ? c->delayacct.since : NAN;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_end_reads(&c->targets[i], now, boottime, blkio_since);
    pt_collector_follow_exits(c); /* the records of the interval's last moments */
    net_end(c);
    pt_collector_udp_end(c);
    if (pt_gpu_on(&c->gpu)) {
        gpu_refresh(c, true);
        for (size_t i = 0; i < c->n_targets; i++)
            pt_target_gpu_end_reads(&c->targets[i], &c->gpu);
    }
    for (size_t i = 0; i < c->n_targets; i++) {
        c->results[i].name = pt_target_name(&c->targets[i]);
        pt_target_end_interval(&c->targets[i], seconds, &c->config.units, &c->results[i].report);
        c->results[i].deltas = c->results[i].report;
        c->results[i].breakdown_key = pt_target_breakdown_key(&c->targets[i]);
        c->results[i].groups = pt_target_group_reports(&c->targets[i], &c->results[i].n_groups);
    }
    b->has_global = c->have_global && pt_sysmem_end_interval(&c->global, seconds, &c->config.units, &b->global);
    b->totals = c->totals != NULL;
    if (c->totals) {
        for (size_t i = 0; i < c->n_targets; i++) {
            pt_totals_line(&c->totals[i], &c->results[i].report);
            pt_totals_groups(&c->totals[i], pt_target_group_reports(&c->targets[i], &c->results[i].n_groups),
                             c->results[i].n_groups);
            check_totals(&c->totals[i], "a target");
        }
        if (b->has_global)
            pt_totals_line(&c->global_totals, &b->global);
        check_totals(&c->global_totals, "the global line");
    }
    note_budget(c);
    return b;
}
