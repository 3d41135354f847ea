/* listeners: the process events and exit records, opened, said and drained. */
#include "collector/listeners.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "procfs/caps.h"
#include "collector/collectorns.h"
#include "procfs/pidns.h"

/* One listener for the matching selectors and every target, opened once
 * there is a target; the line saying which mode is in use is written once.
 * The kernel sends process events and exit records only to a process in
 * the host's pid and user namespaces, through a socket in the host's
 * network namespace (elsewhere the connector refuses the connection), and
 * they name the host's pids: where they cannot apply they are not asked
 * for, and the lines that say so say how to have them. */
#define PT_HOST_PID_NAMESPACE                                                                                          \
    "given only in the host's pid and network namespaces, and this process runs in another pid namespace, a "          \
    "container's; --pid=host --network=host in Docker or hostPID: true and hostNetwork: true in Kubernetes bring "     \
    "them back"
#define PT_HOST_NET_NAMESPACE                                                                                          \
    "given only in the host's network namespace, and this process runs in another, a container's; --network=host "     \
    "in Docker or hostNetwork: true in Kubernetes brings them back"
#define PT_HOST_USER_NAMESPACE                                                                                         \
    "given only in the host's user namespace, and this process runs in another, a rootless or user-namespaced "        \
    "container's; a rootful container in the host's user namespace brings them back"
#define PT_HOST_PROC_ROOT                                                                                              \
    "they name the host's pids, and the proc root is the /proc of another pid namespace, which names its processes "   \
    "otherwise"

static void open_events(struct pt_collector *c)
{
    c->events_tried = true;
    pt_collector_say_namespace(c);
    pt_caps_say_missing();
    static const char *const why_not[] = {
        [PT_EVENTS_APPLY] = NULL,
        [PT_EVENTS_NOT_PROCFS] = "the proc root is no proc filesystem",
        [PT_EVENTS_OTHER_PID_NS] = PT_HOST_PID_NAMESPACE,
        [PT_EVENTS_OTHER_PROC_ROOT] = PT_HOST_PROC_ROOT,
        [PT_EVENTS_OTHER_USER_NS] = PT_HOST_USER_NAMESPACE,
    };
    enum pt_pidns_events fit = pt_pidns_events_fit(c->proc_root_fd);
    int err = fit == PT_EVENTS_APPLY ? pt_procevents_open(&c->events) : -ENOTSUP;
    c->events_refused_here = err == -ECONNREFUSED ? PT_HOST_NET_NAMESPACE : why_not[fit];
    if (err == 0) {
        /* the targets note joins and leaves from now (and those added
         * later from their start, pt_collector_add_target): one the first
         * discovery joins and finds gone before the first drain has its
         * fork in that drain, not counted again (forkstorm launched: 10002
         * of 10001 in 1 run of 60) */
        for (size_t i = 0; i < c->n_targets; i++)
            pt_target_events_listened(&c->targets[i]);
        pt_logf(PT_LOG_INFO, "following the kernel's process events: a process a member starts joins at once, and "
                             "proc_processes_started/exited count every one; a process that starts or becomes a "
                             "match for a matching selector is found at the next discovery");
        return;
    }
    pt_logf(PT_LOG_INFO,
            "no process events (%s%s): a process a member starts is found by discovery (one that exits or is "
            "orphaned first is missed, and proc_processes_started/exited count processes seen, not every "
            "short-lived one); matching selectors walk /proc, a process that exec's into a match is found within %d "
            "discoveries",
            c->events_refused_here ? c->events_refused_here : strerror(-err),
            err == -EPERM ? ": this kernel wants CAP_NET_ADMIN" : "", PT_RECHECK_DISCOVERIES);
}

/* What proctree does without exit records, for the lines that say so. */
#define PT_WITHOUT_EXITS                                                                                               \
    "context switches of exited threads are lost, proc_processes_failed/killed and proc_exited_rss_peak_max are "      \
    "not reported, and a breakdown counts a process's last moments in its reaper's group"

#define PT_ABSENT_WITHOUT_EXITS "proc_processes_failed/killed, proc_exited_rss_peak_max"

/* Records without ac_tgid (a kernel before 6.0) cannot tell a thread
 * from its process: proctree works as without the privilege. */
static void say_too_old(const struct pt_exitrecords *x)
{
    pt_log_absent(PT_ABSENT_WITHOUT_EXITS);
    pt_logf(PT_LOG_INFO,
            "exit records need Linux 6.0 or later (taskstats version %u has no thread-group id); running without "
            "them: " PT_WITHOUT_EXITS,
            (unsigned)x->old_version);
}

/* The exit records, opened with the process events; one line says which
 * mode is in use. Only where the events could be had: their pids must be
 * the proc root's (a fixture tree's are not the host's), and where the
 * kernel refuses events it refuses records too. */
static void open_exit_records(struct pt_collector *c)
{
    int err = c->events.fd >= 0 ? pt_exitrecords_open(&c->exits) : -ENOTSUP;
    if (err == -EPROTONOSUPPORT && c->exits.too_old) {
        say_too_old(&c->exits);
        return;
    }
    if (err == 0) {
        pt_logf(PT_LOG_INFO,
                "using the kernel's exit records (taskstats): proc_ctx_switches_* and the delays include exited "
                "threads and processes; proc_processes_failed/killed and proc_exited_rss_peak_max "
                "are reported");
        return;
    }
    char why[320] = "", text[256];
    if (err == -EPERM) {
        const char *missing = pt_caps_why_missing(pt_caps_current(), PT_CAP_NET_ADMIN, text, sizeof(text));
        snprintf(why, sizeof(why), ": CAP_NET_ADMIN is needed%s%s", missing ? " and missing: " : "",
                 missing ? missing : "");
    }
    pt_log_absent(PT_ABSENT_WITHOUT_EXITS);
    pt_logf(PT_LOG_INFO, "no exit records (taskstats: %s%s): " PT_WITHOUT_EXITS,
            c->events_refused_here ? c->events_refused_here
            : c->events.fd < 0     ? "used with the process events only"
                                   : strerror(-err),
            why);
}

/* A listener's drain serves every target: its CPU, measured from cpu0
 * (pt_thread_cpu_seconds), is shared out evenly, so that the targets'
 * collector_cpu_seconds add up to what proctree spent. Under a fork storm
 * elsewhere on the host the drains are most of that. */
static void charge_drain(struct pt_collector *c, double cpu0)
{
    /* drained only once there is a target (follow_events), though it may
     * have been opened before (pt_collector_listen) */
    assert(c->n_targets > 0);
    double spent = pt_thread_cpu_seconds() - cpu0;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_charge(&c->targets[i], spent / (double)c->n_targets);
}

/* Stop listening for good: every target works on as without records. */
static void stop_exits(struct pt_collector *c)
{
    pt_exitrecords_close(&c->exits);
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_stop_exits(&c->targets[i]);
}

void pt_collector_follow_exits(struct pt_collector *c)
{
    if (c->exits.fd < 0 || c->n_targets == 0) /* opened early (pt_collector_listen): kept for the targets */
        return;
    assert(c->events.fd >= 0); /* the records are opened with the events, and only then */
    double cpu0 = pt_thread_cpu_seconds();
    bool complete = pt_exitrecords_drain(&c->exits);
    charge_drain(c, cpu0);
    if (c->exits.too_old) {
        say_too_old(&c->exits);
        stop_exits(c);
        return;
    }
    char more[96];
    if (!complete && pt_ratelimit_say(&c->exit_loss_said, pt_now(), "drains lost some", more, sizeof(more))) {
        pt_logf(PT_LOG_WARNING,
                "exit records were lost (a burst overflowed the socket); this interval leaves out "
                "proc_processes_failed/killed and proc_exited_rss_peak_max, and its context switches may miss "
                "some exited threads%s",
                more);
    }
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_follow_exits(&c->targets[i], c->exits.records, c->exits.n_records, complete);
}

void pt_collector_open_listeners(struct pt_collector *c)
{
    if (c->events_tried)
        return;
    open_events(c);
    open_exit_records(c);
}

void pt_collector_follow_events(struct pt_collector *c)
{
    if (c->n_targets > 0)
        pt_collector_open_listeners(c);
    if (c->events.fd < 0)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    bool complete = pt_procevents_drain(&c->events);
    char more[96];
    if (!complete && pt_ratelimit_say(&c->event_loss_said, pt_now(), "drains lost some", more, sizeof(more))) {
        pt_logf(PT_LOG_WARNING,
                "process events were lost (a burst overflowed the socket); walking /proc once, and this "
                "interval's proc_processes_started/exited may miss some%s",
                more);
    }
    pt_procscan_follow_events(&c->scan, c->events.events, c->events.n_events, complete);
    charge_drain(c, cpu0); /* the scan's share of the events too: it serves the matching targets */
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_follow_events(&c->targets[i], c->events.events, c->events.n_events, complete);
}
