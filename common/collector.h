/* collector: the one object both frontends drive.
 *
 * A frontend builds a collector from its configuration, adds targets, then
 * calls pt_collector_tick() whenever the deadline it returned has passed
 * (that runs the fast memory polls and the discovery walks that are due),
 * and pt_collector_end_interval() whenever its agent asks for values (a
 * collectd read, a Telegraf newline or timer). Ending an interval takes
 * one last sample, turns the interval's extrema and counter movements into
 * a pt_batch and starts the next interval. Nothing here is thread-safe:
 * the collectd plugin, which samples on its own thread, serialises calls
 * with a mutex. The library logs through pt_logf (base.h): a frontend
 * installs its sink before it builds a collector.
 *
 * Times are CLOCK_MONOTONIC seconds (pt_now(), base.h). */
#ifndef PROCTREE_COLLECTOR_H
#define PROCTREE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "report.h"
#include "selector.h"
#include "units.h"

struct pt_collector_config {
    const char *proc_root;     /* NULL = "/proc" */
    const char *sys_root;      /* NULL = "/sys": the cgroup filesystem is looked
                                  for below <sys_root>/fs/cgroup first */
    double poll_interval;      /* seconds, > 0; default 0.1 */
    double discovery_interval; /* seconds, > 0; default 1 */
    double pss_interval;       /* seconds between smaps_rollup samples; 0 (the
                                  default) = one sample at each interval's end */
    struct pt_units units;
    bool collect_global; /* the global_* line */
    size_t fd_budget;    /* /proc descriptors kept open, all targets together
                            (fdbudget.h); default: half the soft RLIMIT_NOFILE */
};

/* Defaults: /proc, 100 ms poll, 1 s discovery, bytes, global on, half
 * the soft open-files limit for kept descriptors. */
void pt_collector_config_init(struct pt_collector_config *config);

struct pt_collector;

/* Returns NULL and writes a one-line reason into err on failure (proc root
 * not a directory, bad interval). */
struct pt_collector *pt_collector_new(const struct pt_collector_config *config, char *err, size_t errlen);
/* Does root look like a proc filesystem (it has a meminfo)? 0, or -1
 * with a one-line reason in err: a wrong directory would otherwise show
 * only as a missing file later, or as a tree that never appears. */
int pt_collector_check_proc_root(const char *root, char *err, size_t errlen);
void pt_collector_free(struct pt_collector *c);

/* Add a target. name NULL means the default name: the comm of the pid,
 * the pidfile's base name without ".pid", the cgroup's base name, the
 * pattern, exe or user as given. The name is copied. Returns 0, or -1 with
 * a one-line reason in err (a name written as the same line-protocol tag
 * as another's, empty name, a second launched command, a bad regex, an
 * unknown user, no cgroup2 mount). */
int pt_collector_add_target(struct pt_collector *c, const char *name, const struct pt_selector *selector,
                            const struct pt_target_options *options, char *err, size_t errlen);

/* Run what is due at time now (first call: discovery + first sample).
 * Returns the next deadline. */
double pt_collector_tick(struct pt_collector *c, double now);

/* One target's result in a batch. A target with no live process still
 * has its line (proc_processes = 0), so an alert can fire on it. */
struct pt_target_result {
    const char *name;
    struct pt_report report;
    /* With a breakdown: its tag key ("process") and n_groups lines, one
     * per group, valid as the report is; else NULL and 0. */
    const char *breakdown_key;
    const struct pt_group_report *groups;
    size_t n_groups;
};

struct pt_batch {
    int64_t timestamp_ns; /* CLOCK_REALTIME at the interval's end, shared by all lines */
    size_t n_targets;
    struct pt_target_result *targets; /* owned by the collector, valid until the next interval ends */
    bool has_global;
    struct pt_report global;
};

/* End the interval of every target and of the global sampler. */
const struct pt_batch *pt_collector_end_interval(struct pt_collector *c, double now);

/* Launch mode. Reap every exited child of this process, reading each
 * one's final counters from its zombie before reaping (waitid WNOWAIT), and
 * record the launched command's status. Call on SIGCHLD and at every tick. */
void pt_collector_reap(struct pt_collector *c);

/* True once the launched command has exited and no process of its tree is
 * left (this process has no children at all). *status is then the exit
 * status, or 128+signal. */
bool pt_collector_launch_finished(struct pt_collector *c, int *status);

#endif
