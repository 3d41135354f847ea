#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "delayacct.h"
#include "escape.h"
#include "exitrecords.h"
#include "fdbudget.h"
#include "global.h"
#include "lineproto.h"
#include "pidns.h"
#include "procscan.h"
#include "target.h"

struct pt_collector {
    struct pt_collector_config config;
    char *proc_root;
    char *sys_root;
    int proc_root_fd;
    /* Our pid as the proc root names it (pidns.h), used wherever a pid is
     * compared with or looked up in the proc root; getpid() unless the
     * proc root is another pid namespace's (a container's view of the host) */
    pid_t self;
    struct pt_target *targets;
    size_t n_targets;
    struct pt_target_result *results;
    struct pt_global global;
    bool have_global;
    struct pt_batch batch;
    struct pt_fd_budget fd_budget;
    bool said_budget; /* the budget-reached line is written once */
    struct pt_delayacct delayacct;
    struct pt_procscan scan;     /* the host's processes, for the matching selectors */
    struct pt_procevents events; /* the kernel's process events, for scan and targets */
    bool events_tried;
    const char *events_refused_here; /* why, outside the host's namespaces; else NULL */
    struct pt_exitrecords exits;     /* the kernel's exit records, for every target */
    bool said_exit_loss;             /* this interval's loss line is written */
    bool started;
    double next_poll, next_discovery, next_pss;
    double interval_start;

    /* launch mode */
    struct pt_target *launched;
    pid_t launched_ours; /* its pid in our namespace, as fork() gave it */
    bool launched_exited;
    int launched_status;
};

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void pt_collector_config_init(struct pt_collector_config *config)
{
    memset(config, 0, sizeof(*config));
    config->poll_interval = 0.1;
    config->discovery_interval = 1.0;
    config->units.proc_memory = PT_MEM_BYTES;
    config->units.global_memory = PT_MEM_BYTES;
    config->collect_global = true;
    config->fd_budget = pt_fd_budget_from_rlimit(0.5, 0);
}

/* The proc root's directory, once it looks like a proc filesystem; or
 * -1 with a one-line reason in err. */
static int open_proc_root(const char *root, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "proc root \"%s\": %s", pt_escape(q, sizeof(q), root), strerror(errno));
        return -1;
    }
    int meminfo = pt_open_at(fd, "meminfo");
    if (meminfo < 0) {
        close(fd);
        snprintf(err, errlen, "\"%s\" is not a proc filesystem (no meminfo: %s)", pt_escape(q, sizeof(q), root),
                 strerror(-meminfo));
        return -1;
    }
    close(meminfo);
    return fd;
}

int pt_collector_check_proc_root(const char *root, char *err, size_t errlen)
{
    int fd = open_proc_root(root, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int pt_collector_check_sys_root(const char *root, char *err, size_t errlen)
{
    char q[PT_QUOTED_MAX];
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "sys root \"%s\": %s", pt_escape(q, sizeof(q), root), strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

struct pt_collector *pt_collector_new(const struct pt_collector_config *config, char *err, size_t errlen)
{
    const char *root = config->proc_root ? config->proc_root : "/proc";
    if (!(config->poll_interval > 0) || !isfinite(config->poll_interval)) {
        snprintf(err, errlen, "poll interval must be > 0");
        return NULL;
    }
    if (!(config->discovery_interval > 0) || !isfinite(config->discovery_interval)) {
        snprintf(err, errlen, "discovery interval must be > 0");
        return NULL;
    }
    if (!(config->pss_interval >= 0) || !isfinite(config->pss_interval)) {
        snprintf(err, errlen, "PSS interval must be >= 0");
        return NULL;
    }
    int fd = open_proc_root(root, err, errlen);
    if (fd < 0)
        return NULL;
    struct pt_collector *c = pt_xalloc(sizeof(*c));
    c->proc_root = pt_xstrdup(root);
    c->config = *config;
    c->config.proc_root = c->proc_root;
    c->sys_root = pt_xstrdup(config->sys_root ? config->sys_root : "/sys");
    c->config.sys_root = c->sys_root;
    c->proc_root_fd = fd;
    c->self = pt_pidns_self(fd);
    pt_delayacct_init(&c->delayacct, fd);
    c->fd_budget.limit = config->fd_budget;
    pt_procscan_init(&c->scan, fd, c->self);
    c->events.fd = -1;
    c->exits.fd = -1;
    c->global.fd = -1;
    if (config->collect_global) {
        int r = pt_global_init(&c->global, fd);
        if (r < 0) {
            char q[PT_QUOTED_MAX];
            snprintf(err, errlen, "\"%s/meminfo\": %s", pt_escape(q, sizeof(q), root), strerror(-r));
            pt_collector_free(c);
            return NULL;
        }
        c->have_global = true;
    }
    return c;
}

void pt_collector_free(struct pt_collector *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_free(&c->targets[i]);
    free(c->targets);
    free(c->results);
    pt_procscan_free(&c->scan);
    pt_procevents_close(&c->events);
    pt_exitrecords_close(&c->exits);
    if (c->have_global)
        pt_global_free(&c->global);
    close(c->proc_root_fd);
    free(c->proc_root);
    free(c->sys_root);
    free(c);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The name a target of selector gets when none is given (see
 * pt_collector_add_target), written into out: 0, or -1 when there is
 * none (an empty base name or value). */
static int default_name(const struct pt_collector *c, const struct pt_selector *selector, char *out, size_t outlen)
{
    switch (selector->kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD: {
        struct pt_buf buf = {0};
        struct pt_stat st;
        enum pt_read r = pt_read_stat_by_pid(c->proc_root_fd, selector->pid, &buf, &st);
        pt_buf_free(&buf);
        if (r == PT_READ_OK && st.comm[0])
            snprintf(out, outlen, "%s", st.comm);
        else
            snprintf(out, outlen, "pid%d", (int)selector->pid);
        return 0;
    }
    case PT_SELECT_PIDFILE:
    case PT_SELECT_CGROUP: {
        const char *base = base_name(selector->path);
        size_t len = strlen(base);
        if (selector->kind == PT_SELECT_PIDFILE && len > 4 && strcmp(base + len - 4, ".pid") == 0)
            len -= 4;
        if (len == 0)
            return -1;
        snprintf(out, outlen, "%.*s", (int)len, base);
        return 0;
    }
    case PT_SELECT_MATCH:
    case PT_SELECT_EXE:
    case PT_SELECT_USER:
    case PT_SELECT_UNIT:
        snprintf(out, outlen, "%s", selector->value);
        return out[0] ? 0 : -1;
    }
    return -1;
}

/* Whether two names are written as the same target tag, and so would
 * merge into one series: escaping makes "\n" and "\\" both "_". */
static bool same_tag(const char *a, const char *b)
{
    struct pt_buf x = {0}, y = {0};
    pt_lp_append_tag_value(&x, a, strlen(a));
    pt_lp_append_tag_value(&y, b, strlen(b));
    bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    pt_buf_free(&x);
    pt_buf_free(&y);
    return same;
}

/* Names are compared as written, not as given, and both are named: the
 * second may be a default name nobody typed. */
static int check_unique_name(const struct pt_collector *c, const char *name, char *err, size_t errlen)
{
    char qa[96], qb[96]; /* two of them fit a 256-byte error */
    for (size_t i = 0; i < c->n_targets; i++) {
        const char *other = pt_target_name(&c->targets[i]);
        if (strcmp(other, name) == 0) {
            snprintf(err, errlen, "duplicate target name \"%s\"", pt_escape(qa, sizeof(qa), name));
            return -1;
        }
        if (same_tag(other, name)) {
            snprintf(err, errlen, "duplicate target name: \"%s\" and \"%s\" are written as the same tag",
                     pt_escape(qa, sizeof(qa), other), pt_escape(qb, sizeof(qb), name));
            return -1;
        }
    }
    return 0;
}

/* The launched command as the proc root names it: fork() gave its pid in
 * our namespace, which in a container's view of the host's /proc is
 * another process's. 0, or -1 with a one-line reason in err. */
static int launched_in_root(struct pt_collector *c, struct pt_selector *selector, char *err, size_t errlen)
{
    struct pt_buf buf = {0};
    pid_t ours = selector->pid;
    selector->pid = pt_pidns_child_in_root(c->proc_root_fd, c->self, ours, &buf);
    pt_buf_free(&buf);
    if (selector->pid > 0)
        return 0;
    char q[PT_QUOTED_MAX];
    snprintf(err, errlen,
             "the proc root \"%s\" does not show the launched command (pid %d here) among this process's "
             "children: it is not this pid namespace's /proc nor an outer one's",
             pt_escape(q, sizeof(q), c->proc_root), (int)ours);
    return -1;
}

/* In a container reading the host's /proc, a pid means the host's, which
 * a user may not expect: say it when the pid given is one of our
 * namespace's and the proc root's process of that pid is another. And
 * cgroup.procs lists pids in our namespace (0 for those we cannot see),
 * which the proc root's pids are not: say that --cgroup and --unit
 * cannot work. */
static void check_namespace(struct pt_collector *c, const char *name, const struct pt_selector *selector)
{
    if (c->self == getpid())
        return;
    char qn[PT_QUOTED_MAX], qc[PT_QUOTED_MAX];
    pt_escape(qn, sizeof(qn), name);
    if (selector->kind == PT_SELECT_CGROUP || selector->kind == PT_SELECT_UNIT) {
        pt_logf(PT_LOG_WARNING,
                "target \"%s\": the %s's processes cannot be found: the proc root is another pid "
                "namespace's, and cgroup.procs lists this one's pids (0 for the others); run in the host's pid "
                "namespace (--pid=host in Docker, hostPID: true in Kubernetes)",
                qn, selector->kind == PT_SELECT_UNIT ? "unit" : "cgroup");
        return;
    }
    pid_t pid = selector->pid;
    if (selector->kind != PT_SELECT_PID || !(kill(pid, 0) == 0 || errno == EPERM))
        return; /* no such pid here: the proc root's, as meant */
    struct pt_buf buf = {0};
    if (!pt_pidns_same_pid(c->proc_root_fd, c->self, pid, &buf)) {
        struct pt_stat st;
        bool shown = pt_read_stat_by_pid(c->proc_root_fd, pid, &buf, &st) == PT_READ_OK;
        pid_t there = pt_pidns_find_in_root(c->proc_root_fd, c->self, pid, &buf);
        char found[64] = "";
        if (there > 0)
            snprintf(found, sizeof(found), " (pid %d in the proc root)", (int)there);
        pt_logf(PT_LOG_WARNING,
                "target \"%s\": pid %d is taken in the proc root's pid namespace, where it is %s%s%s; in this "
                "process's namespace, another, pid %d is another process%s: give the pid the proc root shows",
                qn, (int)pid, shown ? "\"" : "", shown ? pt_escape(qc, sizeof(qc), st.comm) : "no process",
                shown ? "\"" : "", (int)pid, found);
    }
    pt_buf_free(&buf);
}

int pt_collector_add_target(struct pt_collector *c, const char *name, const struct pt_selector *selector,
                            const struct pt_target_options *options, char *err, size_t errlen)
{
    char derived[256];
    if (selector->kind == PT_SELECT_CHILD && c->launched) {
        snprintf(err, errlen, "only one launched command per process");
        return -1;
    }
    pid_t ours = selector->pid; /* the launched command's, before launched_in_root */
    struct pt_selector in_root = *selector;
    if (selector->kind == PT_SELECT_CHILD && launched_in_root(c, &in_root, err, errlen) != 0)
        return -1;
    selector = &in_root;
    if (!name) {
        if (default_name(c, selector, derived, sizeof(derived)) != 0) {
            snprintf(err, errlen, "cannot derive a target name; give one");
            return -1;
        }
        name = derived;
    }
    if (!name[0]) {
        snprintf(err, errlen, "empty target name");
        return -1;
    }
    if (check_unique_name(c, name, err, errlen) != 0)
        return -1;
    c->targets = pt_xrealloc_array(c->targets, c->n_targets + 1, sizeof(*c->targets));
    c->results = pt_xrealloc_array(c->results, c->n_targets + 1, sizeof(*c->results));
    bool pss_at_end = c->config.pss_interval == 0; /* else on its own timer */
    if (pt_target_init(&c->targets[c->n_targets], name, selector, options, pss_at_end, c->proc_root_fd, c->sys_root,
                       &c->fd_budget, err, errlen) != 0)
        return -1;
    pt_target_set_self(&c->targets[c->n_targets], c->self);
    check_namespace(c, name, selector);
    if (selector->kind == PT_SELECT_CHILD)
        c->launched_ours = ours;
    c->n_targets++;
    /* the array may have moved: point at the launched one again */
    c->launched = NULL;
    for (size_t i = 0; i < c->n_targets; i++)
        if (pt_target_launched_pid(&c->targets[i]) > 0)
            c->launched = &c->targets[i];
    return 0;
}

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

/* Where the proc root is another pid namespace's (a container reading the
 * host's /proc, or the host reading a container's), pids given to us are
 * its: said once, at start. */
static void say_namespace(const struct pt_collector *c)
{
    if (c->self == getpid())
        return;
    char q[PT_QUOTED_MAX];
    if (c->self == 0)
        pt_logf(PT_LOG_INFO,
                "the proc root \"%s\" is the /proc of a pid namespace that does not hold this process (a "
                "container's, seen from outside): the pids of targets and pid files are taken as that namespace's, "
                "and --cgroup and --unit cannot name their processes there",
                pt_escape(q, sizeof(q), c->proc_root));
    else
        pt_logf(PT_LOG_INFO,
                "the proc root \"%s\" is another pid namespace's (this process is pid %d there, %d here): the pids "
                "of targets and pid files are taken as the proc root's",
                pt_escape(q, sizeof(q), c->proc_root), (int)c->self, (int)getpid());
}

static void open_events(struct pt_collector *c)
{
    c->events_tried = true;
    say_namespace(c);
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

/* Records without ac_tgid (a kernel before 6.0) cannot tell a thread
 * from its process: proctree works as without the privilege. */
static void say_too_old(const struct pt_exitrecords *x)
{
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

/* Hand the exit records that arrived since the last drain to every
 * target, after the process events (a process they join may be in them)
 * and the polls (the reapers' folds they read are there to share out).
 * A record without ac_tgid (which open's check should have caught) stops
 * the listener: none of that drain's records is used, as if all were
 * lost, and the targets leave out the exit metrics from that interval on. */
static void follow_exits(struct pt_collector *c)
{
    if (c->exits.fd < 0)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    bool complete = pt_exitrecords_drain(&c->exits);
    charge_drain(c, cpu0);
    if (c->exits.too_old) {
        say_too_old(&c->exits);
        stop_exits(c);
        return;
    }
    if (!complete && !c->said_exit_loss) {
        c->said_exit_loss = true;
        pt_logf(PT_LOG_WARNING, "exit records were lost (a burst overflowed the socket); this interval leaves out "
                                "proc_processes_failed/killed and proc_exited_rss_peak_max, and its context "
                                "switches may miss some exited threads");
    }
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_follow_exits(&c->targets[i], c->exits.records, c->exits.n_records, complete);
}

/* Drain the events that arrived since the last tick, without waiting,
 * and hand them to the matching selectors' cache and to every target. */
static void follow_events(struct pt_collector *c)
{
    if (!c->events_tried && c->n_targets > 0) {
        open_events(c);
        open_exit_records(c);
    }
    if (c->events.fd < 0)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    bool complete = pt_procevents_drain(&c->events);
    if (!complete)
        pt_logf(PT_LOG_WARNING, "process events were lost (a burst overflowed the socket); walking /proc once, "
                                "and this interval's proc_processes_started/exited may miss some");
    pt_procscan_follow_events(&c->scan, c->events.events, c->events.n_events, complete);
    charge_drain(c, cpu0); /* the scan's share of the events too: it serves the matching targets */
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_follow_events(&c->targets[i], c->events.events, c->events.n_events, complete);
}

static void discover(struct pt_collector *c)
{
    pt_procscan_run(&c->scan, c->targets, c->n_targets, c->events.fd >= 0);
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_discover(&c->targets[i]);
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

double pt_collector_tick(struct pt_collector *c, double now)
{
    if (!c->started) {
        c->started = true;
        c->next_poll = c->next_discovery = c->interval_start = now;
        c->next_pss = now + c->config.pss_interval;
    }
    follow_events(c);
    if (now >= c->next_discovery) {
        discover(c);
        c->next_discovery += c->config.discovery_interval;
        if (c->next_discovery <= now) /* we were late: do not try to catch up */
            c->next_discovery = now + c->config.discovery_interval;
    }
    if (now >= c->next_poll) {
        for (size_t i = 0; i < c->n_targets; i++)
            pt_target_poll(&c->targets[i]);
        if (c->have_global)
            pt_global_poll(&c->global);
        c->next_poll += c->config.poll_interval;
        if (c->next_poll <= now)
            c->next_poll = now + c->config.poll_interval;
    }
    double next = c->next_poll < c->next_discovery ? c->next_poll : c->next_discovery;
    if (c->config.pss_interval > 0) {
        if (now >= c->next_pss) {
            for (size_t i = 0; i < c->n_targets; i++)
                pt_target_sample_pss(&c->targets[i]);
            c->next_pss += c->config.pss_interval;
            if (c->next_pss <= now)
                c->next_pss = now + c->config.pss_interval;
        }
        if (c->next_pss < next)
            next = c->next_pss;
    }
    /* after the polls: the folds they read are there for the records'
     * CPU to be shared out of (exits.c) */
    follow_exits(c);
    note_budget(c);
    return next;
}

const struct pt_batch *pt_collector_end_interval(struct pt_collector *c, double now)
{
    if (!c->started)
        pt_collector_tick(c, now);
    struct pt_batch *b = &c->batch;
    b->timestamp_ns = realtime_ns();
    b->n_targets = c->n_targets;
    b->targets = c->results;
    double seconds = now - c->interval_start;
    c->interval_start = now;
    follow_events(c); /* a process forked since the last tick is a member of this interval */
    double blkio_since = pt_delayacct_on(&c->delayacct, c->proc_root_fd, now) ? c->delayacct.since : NAN;
    for (size_t i = 0; i < c->n_targets; i++)
        pt_target_end_reads(&c->targets[i], now, blkio_since);
    follow_exits(c); /* the records of the interval's last moments */
    c->said_exit_loss = false;
    for (size_t i = 0; i < c->n_targets; i++) {
        c->results[i].name = pt_target_name(&c->targets[i]);
        pt_target_end_interval(&c->targets[i], seconds, &c->config.units, &c->results[i].report);
        c->results[i].breakdown_key = pt_target_breakdown_key(&c->targets[i]);
        c->results[i].groups = pt_target_group_reports(&c->targets[i], &c->results[i].n_groups);
    }
    b->has_global = c->have_global && pt_global_end_interval(&c->global, &c->config.units, &b->global);
    note_budget(c);
    return b;
}

/* ---- launch mode ------------------------------------------------------ */

void pt_collector_reap(struct pt_collector *c)
{
    struct pt_buf buf = {0}; /* used only when the proc root is another namespace's */
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            break;
        pid_t pid = si.si_pid;
        /* the proc root's pid of it (pidns.h): a zombie is still shown */
        pid_t in_root = c->launched ? pt_pidns_child_in_root(c->proc_root_fd, c->self, pid, &buf) : 0;
        /* Still a zombie: its stat and io hold its final usage. */
        if (in_root > 0)
            pt_target_final_read(c->launched, in_root);
        int status;
        if (waitpid(pid, &status, WNOHANG) != pid)
            break;
        if (c->launched) {
            if (in_root > 0)
                pt_target_reaped(c->launched, in_root);
            if (pid == c->launched_ours) {
                c->launched_exited = true;
                c->launched_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
                pt_logf(PT_LOG_INFO, "launched command (pid %d) exited with status %d", (int)pid, c->launched_status);
            }
        }
    }
    pt_buf_free(&buf);
}

bool pt_collector_launch_finished(struct pt_collector *c, int *status)
{
    if (!c->launched || !c->launched_exited)
        return false;
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    /* ECHILD: no child left, alive or zombie: the whole tree is gone. */
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD)
        return false;
    *status = c->launched_status;
    return true;
}
