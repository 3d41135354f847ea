/* collector: the one object both frontends drive.
 *
 * A frontend builds a collector from its configuration, adds targets, then
 * calls pt_collector_tick() whenever the deadline it returned has passed
 * (that runs the fast memory polls and the discovery walks that are due),
 * and pt_collector_close() whenever its agent asks for values (a collectd
 * read, a Telegraf newline or timer). Closing takes one last sample, turns
 * the interval's extrema and counter movements into a pt_batch and starts
 * the next interval. Nothing here is thread-safe: the collectd plugin,
 * which samples on its own thread, serialises calls with a mutex.
 *
 * Times are CLOCK_MONOTONIC seconds (pt_now()). */
#ifndef PROCTREE_COLLECTOR_H
#define PROCTREE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "units.h"

enum pt_log_level { PT_LOG_ERROR, PT_LOG_WARNING, PT_LOG_INFO, PT_LOG_DEBUG };

/* Log sink: one short line, no trailing newline. */
typedef void (*pt_log_fn)(enum pt_log_level level, const char *message, void *arg);

struct pt_collector_config {
    const char *proc_root;     /* NULL = "/proc" */
    double poll_interval;      /* seconds, > 0; default 0.1 */
    double discovery_interval; /* seconds, > 0; default 1 */
    double pss_interval;       /* seconds between smaps_rollup samples; 0 (the
                                  default) = one sample when an interval closes */
    struct pt_units units;
    bool collect_global; /* the global_* line */
    size_t fd_budget;    /* /proc descriptors kept open, all targets together
                            (fdbudget.h); default: half the soft RLIMIT_NOFILE */
    pt_log_fn log;       /* NULL = silent */
    void *log_arg;
};

/* Defaults: /proc, 100 ms poll, 1 s discovery, bytes, global on, half
 * the soft open-files limit for kept descriptors. */
void pt_collector_config_init(struct pt_collector_config *config);

enum pt_selector_kind {
    PT_SELECT_PID,     /* one process, pinned by (pid, starttime) */
    PT_SELECT_PIDFILE, /* re-read at every discovery tick */
    PT_SELECT_CHILD,   /* a command this process launched (pt_launch) */
    /* every matching process is a root (matcher.h), scanned at each tick */
    PT_SELECT_MATCH,  /* POSIX ERE on the command line */
    PT_SELECT_EXE,    /* comm or executable base name */
    PT_SELECT_USER,   /* effective user, name or uid */
    PT_SELECT_CGROUP, /* a cgroup and its sub-cgroups */
};

/* The kernel's PID_MAX_LIMIT (64-bit): every pid is below it. */
#define PT_PID_LIMIT 4194304

struct pt_selector {
    enum pt_selector_kind kind;
    pid_t pid;         /* PID, CHILD */
    const char *path;  /* PIDFILE, CGROUP (copied) */
    const char *value; /* MATCH regex, EXE name, USER name or uid (copied) */
};

struct pt_target_options {
    bool collect_pss;          /* smaps_rollup: pss, shared, uss, swap */
    double pss_budget;         /* seconds; a slower smaps_rollup read makes that
                                  member's reads rarer (default 5 ms; 0 = no guard) */
    bool collect_ctx_switches; /* every thread's status, once per interval */
    bool collect_fds;          /* fd/ of every member, once per interval */
};

/* All on. */
void pt_target_options_init(struct pt_target_options *options);

struct pt_collector;

/* Returns NULL and writes a one-line reason into err on failure (proc root
 * not a directory, bad interval). */
struct pt_collector *pt_collector_new(const struct pt_collector_config *config, char *err, size_t errlen);
void pt_collector_free(struct pt_collector *c);

/* Add a target. name NULL means the default name: the comm of the pid,
 * the pidfile's base name without ".pid", the cgroup's base name, the
 * pattern, exe or user as given. The name is copied. Returns 0, or -1 with
 * a one-line reason in err (a name written as the same line-protocol tag
 * as another's, empty name, a second launched command, a bad regex, an
 * unknown user, no cgroup2 mount). */
int pt_collector_add_target(struct pt_collector *c, const char *name, const struct pt_selector *selector,
                            const struct pt_target_options *options, char *err, size_t errlen);

/* The default name a target would get (for frontends that need it early);
 * writes into out, returns 0 or -1. */
int pt_collector_default_name(struct pt_collector *c, const struct pt_selector *selector, char *out,
                              size_t outlen);

/* Run what is due at time now (first call: discovery + first sample).
 * Returns the next deadline. */
double pt_collector_tick(struct pt_collector *c, double now);

/* One target's result in a batch. A target with no live process still
 * has its line (proc_processes = 0), so an alert can fire on it. */
struct pt_target_result {
    const char *name;
    struct pt_report report;
};

struct pt_batch {
    int64_t timestamp_ns; /* CLOCK_REALTIME at the close, shared by all lines */
    size_t n_targets;
    struct pt_target_result *targets; /* owned by the collector, valid until the next close */
    bool has_global;
    struct pt_report global;
};

/* Close the interval of every target and the global sampler. */
const struct pt_batch *pt_collector_close(struct pt_collector *c, double now);

/* Launch mode. Reap every exited child of this process, reading each
 * one's final counters from its zombie before reaping (waitid WNOWAIT), and
 * record the launched command's status. Call on SIGCHLD and at every tick. */
void pt_collector_reap(struct pt_collector *c);

/* True once the launched command has exited and no process of its tree is
 * left (this process has no children at all). *status is then the exit
 * status, or 128+signal. */
bool pt_collector_launch_finished(struct pt_collector *c, int *status);

/* CLOCK_MONOTONIC in seconds. */
double pt_now(void);

#endif
