/* targetstops: why a target has no live process, found and said. */
#include "tree/targetstops.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cgroup/cgroupfs.h"
#include "util/escape.h"
#include "procfs/pidns.h"
#include "procfs/pidwalk.h"

/* An empty target looks like a stopped service: say which it is. */
enum empty_why {
    WHY_NOT_SAID,
    WHY_PIDFILE,     /* the pid file names no pid (missing, not regular, ...) */
    WHY_REFUSED,     /* it names a pid refused (1, a kernel thread, ours) */
    WHY_NOT_RUNNING, /* the pid named is no process */
    WHY_REUSED,      /* the pinned root exited, its pid is another's now */
    WHY_HIDDEN,      /* it is one, but the proc root does not show it */
    WHY_CGROUP_GONE, /* the cgroup does not exist */
    WHY_CGROUP_EMPTY,
    WHY_UNIT_GONE, /* the unit (no unit of the glob) has no cgroup: not running */
    WHY_UNIT_EMPTY,
    WHY_UNNAMED, /* the cgroup's (or unit's) processes cannot be named in this pid namespace */
    WHY_NO_MATCH,
    WHY_NO_MATCH_HIDDEN, /* and the proc root hides other users' processes */
    WHY_COUNT
};
_Static_assert(WHY_COUNT <= 16, "enum empty_why outgrows its 4 bits of empty_why's key");

/* The limiter of a line, in s->limits. A target that was followed
 * and stops has the one it shares with the restarts' lines (a crash loop
 * is seen as stops, restarts or both, one line a period whichever way);
 * an empty target's line has its reason's, each problem of a pid file
 * one of its own: a line that tells something new (the file a FIFO now,
 * the pid in it another) is not held back by another reason's. */
#define LIMIT_STOPS WHY_NOT_SAID /* no line of its own: its place is free */
_Static_assert(WHY_COUNT + PT_PIDFILE_OUTCOMES == PT_EMPTY_LIMITS, "PT_EMPTY_LIMITS: one per reason");

static unsigned limit_of(enum empty_why why, enum pt_pidfile_outcome outcome)
{
    return why == WHY_PIDFILE ? WHY_COUNT + (unsigned)outcome : (unsigned)why;
}

/* A process with this pid exists in our pid namespace, visible or not
 * (kill(pid, 0) checks existence, EPERM included, and sends nothing). */
static bool pid_exists(pid_t pid)
{
    return kill(pid, 0) == 0 || errno == EPERM;
}

/* Why the target is empty; hidepid gets the proc root's option when the
 * reason is that it hides processes (our mountinfo is read only then). */
static enum empty_why why_empty(const struct pt_target *t, char *hidepid, size_t hidepid_len)
{
    switch (t->selector.kind) {
    case PT_SELECT_PIDFILE:
        if (t->discovery.pidfile.outcome != PT_PIDFILE_PID)
            return WHY_PIDFILE;
        if (t->discovery.refused_pid)
            return WHY_REFUSED;
        /* fall through */
    case PT_SELECT_PID:
    case PT_SELECT_CHILD: {
        char entry[16];
        snprintf(entry, sizeof(entry), "%d", (int)t->discovery.named_pid);
        if (t->discovery.named_pid <= 0)
            return WHY_NOT_RUNNING;
        if (faccessat(t->proc_root_fd, entry, F_OK, 0) == 0)
            return WHY_REUSED;
        if (!pid_exists(t->discovery.named_pid))
            return WHY_NOT_RUNNING;
        pt_pidwalk_hidepid(t->proc_root_fd, t->buf, hidepid, hidepid_len);
        return WHY_HIDDEN;
    }
    case PT_SELECT_CGROUP:
    case PT_SELECT_UNIT:
        if (t->discovery.cgroup_error == -ENOENT)
            return t->selector.kind == PT_SELECT_UNIT ? WHY_UNIT_GONE : WHY_CGROUP_GONE;
        if (t->discovery.cgroup_unnamed > 0 || !pt_pidns_is_hosts(t->proc_root_fd))
            return WHY_UNNAMED;
        return t->selector.kind == PT_SELECT_UNIT ? WHY_UNIT_EMPTY : WHY_CGROUP_EMPTY;
    default:
        return pt_pidwalk_hidepid(t->proc_root_fd, t->buf, hidepid, hidepid_len) ? WHY_NO_MATCH_HIDDEN : WHY_NO_MATCH;
    }
}

/* pid runs in our pid namespace, the proc root is another's: pids are
 * the proc root's. Where the proc root shows ours, the pid it gives
 * our pid is looked for (one walk, said once). */
static void say_other_namespace(const struct pt_target *t, pid_t pid, char *what, size_t whatlen)
{
    pid_t there = t->self != getpid() ? pt_pidns_find_in_root(t->proc_root_fd, t->self, pid, t->buf) : 0;
    char found[64] = "";
    if (there > 0)
        snprintf(found, sizeof(found), " (pid %d there)", (int)there);
    snprintf(what, whatlen,
             "pid %d runs in this pid namespace but the proc root does not show it: pids are taken in the proc "
             "root's namespace, another one; give the pid it shows%s, or a proc root of this namespace",
             (int)pid, found);
}

/* Does this process see the cgroups as a container does: in a pid or
 * cgroup namespace of its own, or with its cgroup mounts showing only a
 * part of the hierarchies (read when a line needs it, not per poll)? */
static bool in_container(const struct pt_target *t)
{
    if (pt_pidns_in_container(t->proc_root_fd))
        return true;
    return pt_procfs_read_file_at(AT_FDCWD, "/proc/self/mountinfo", t->buf) > 0 && pt_cgroupfs_shows_part(t->buf->data);
}

/* The cgroup's processes are not this pid namespace's to name: said with
 * what the scan saw and how to have them. */
static void say_unnamed(const struct pt_target *t, char *what, size_t whatlen)
{
    char q[PT_QUOTED_MAX], subject[PT_QUOTED_MAX + 16], count[64];
    if (t->selector.kind == PT_SELECT_UNIT)
        snprintf(subject, sizeof(subject), "unit \"%s\"", pt_escape(pt_matcher_unit(&t->matcher)->name, q, sizeof(q)));
    else
        snprintf(subject, sizeof(subject), "cgroup \"%s\"", pt_escape(pt_matcher_cgroup(&t->matcher), q, sizeof(q)));
    if (t->discovery.cgroup_unnamed > 0)
        snprintf(count, sizeof(count), "%zu process%s, none of which", t->discovery.cgroup_unnamed,
                 t->discovery.cgroup_unnamed == 1 ? "" : "es");
    else
        snprintf(count, sizeof(count), "no process that");
    const char *why = !t->proc_root_ours ? "cgroup.procs lists this pid namespace's pids, and the proc root is "
                                           "another pid namespace's"
                      : t->discovery.cgroup_unnamed > 0
                          ? "they run outside this pid namespace, which is not the host's "
                            "(cgroup.procs lists them as 0)"
                          : "this pid namespace is not the host's, and cgroup.procs lists only "
                            "the processes in it";
    snprintf(what, whatlen,
             "%s has %s this process can name: %s; run in the host's pid namespace (--pid=host in Docker, "
             "hostPID: true in Kubernetes)",
             subject, count, why);
}

/* Why the target is empty, in words, into what; false for no line. */
static bool say_why(const struct pt_target *t, enum empty_why why, const char *hidepid, char *what, size_t whatlen)
{
    char problem[128], q[PT_QUOTED_MAX];
    pid_t pid = t->discovery.named_pid;
    switch (why) {
    case WHY_PIDFILE: /* its problem other than missing was said by pidfile.c */
        snprintf(what, whatlen, "pid file \"%s\" %s", pt_escape(t->selector.path, q, sizeof(q)),
                 t->discovery.pidfile.outcome == PT_PIDFILE_MISSING &&
                         pt_pidfile_problem(&t->discovery.pidfile, problem, sizeof(problem))
                     ? problem
                     : "names no pid (see its warning)");
        break;
    case WHY_REFUSED:
        snprintf(what, whatlen, "the pid file names pid %d, refused", (int)pid);
        break;
    case WHY_NOT_RUNNING:
        snprintf(what, whatlen, pid > 0 ? "pid %d is not running%s" : "no pid named", (int)pid,
                 pid > 0 && t->self == getpid() && !pt_pidns_is_hosts(t->proc_root_fd)
                     ? " in this pid namespace, which is not the host's (a container): a host's pid needs the "
                       "host's /proc as the proc root (--proc-root or HOST_PROC; collectd: ProcRoot)"
                     : "");
        break;
    case WHY_REUSED:
        snprintf(what, whatlen, "pid %d has exited (the pid is another process's now)", (int)pid);
        break;
    case WHY_HIDDEN:
        if (hidepid[0])
            snprintf(what, whatlen, "pid %d runs but the proc root does not show it: it is mounted %s", (int)pid,
                     hidepid);
        else
            say_other_namespace(t, pid, what, whatlen);
        break;
    case WHY_CGROUP_GONE:
        snprintf(what, whatlen, "cgroup \"%s\" does not exist%s",
                 pt_escape(pt_matcher_cgroup(&t->matcher), q, sizeof(q)),
                 t->sys_root_default && in_container(t)
                     ? " here: this process runs in a container, whose /sys shows its own cgroups; a host's cgroup "
                       "needs the host's /sys, mounted and named by HOST_SYS or --sys-root (collectd: SysRoot)"
                     : "");
        break;
    case WHY_UNNAMED:
        say_unnamed(t, what, whatlen);
        break;
    case WHY_CGROUP_EMPTY:
        snprintf(what, whatlen, "cgroup \"%s\" has no process",
                 pt_escape(pt_matcher_cgroup(&t->matcher), q, sizeof(q)));
        break;
    case WHY_UNIT_GONE: {
        const struct pt_sdunit *u = pt_matcher_unit(&t->matcher);
        if (!pt_sdunit_systemd_manages(u)) /* not inactive: no systemd to know (targetunit.c said it) */
            snprintf(what, whatlen, "%s \"%s\" has no cgroup: no systemd manages the cgroups read here",
                     u->glob ? "no unit matching" : "unit", pt_escape(u->name, q, sizeof(q)));
        else if (u->glob)
            snprintf(what, whatlen, "no unit matching \"%s\" is running (none has a cgroup)",
                     pt_escape(u->name, q, sizeof(q)));
        else
            snprintf(what, whatlen, "unit \"%s\" is %s (it has no cgroup)", pt_escape(u->name, q, sizeof(q)),
                     pt_sdunit_state(u));
        break;
    }
    case WHY_UNIT_EMPTY:
        snprintf(what, whatlen, "unit \"%s\" has a cgroup but no process",
                 pt_escape(pt_matcher_unit(&t->matcher)->name, q, sizeof(q)));
        break;
    case WHY_NO_MATCH:
        snprintf(what, whatlen, "no process matches");
        break;
    case WHY_NO_MATCH_HIDDEN:
        snprintf(what, whatlen,
                 "no process matches among those shown: the proc root is mounted %s, which hides other "
                 "users' processes (run as root, or in the mount's gid= group)",
                 hidepid);
        break;
    default:
        return false;
    }
    return true;
}

/* The line of why, now or late (held back when it came): said with the
 * count its limiter held back, itself not among them. */
static void log_stop(const struct pt_target *t, struct pt_target_stops *s, enum empty_why why, const char *hidepid,
                     double now)
{
    unsigned held;
    struct pt_ratelimit *limit = &s->limits[s->limiter];
    bool late = s->holding;
    s->holding = !pt_ratelimit_pass(limit, now, PT_RATELIMIT_PERIOD, &held);
    char what[PT_QUOTED_MAX + 320], more[96];
    if (s->holding || !say_why(t, why, hidepid, what, sizeof(what)))
        return;
    if (late && held > 0)
        held--;
    pt_ratelimit_held_tail(held, s->limiter == LIMIT_STOPS ? "restarts or stops" : "like it", more, sizeof(more));
    s->said_any = true;
    pt_targetstate_logf(t, PT_LOG_WARNING, "no live process: %s; will keep looking%s", what, more);
}

void pt_targetstops_say_why_empty(const struct pt_target *t, struct pt_target_stops *s, double now)
{
    if (pt_targetstate_live_members(t) > 0) {
        if (s->said_any)
            pt_targetstate_logf(t, PT_LOG_INFO, "following pid %d again", (int)t->membership.members[0].pid);
        s->why = WHY_NOT_SAID;
        s->followed = true;
        s->said_any = s->holding = false;
        return;
    }
    char hidepid[32] = "";
    enum empty_why why = why_empty(t, hidepid, sizeof(hidepid));
    /* The launched command ends, and its tree with it: the collector says
     * so ("exited with status"), and a discovery between the last reap
     * and the end of the run finds nothing, as it should. */
    if (t->selector.kind == PT_SELECT_CHILD && (why == WHY_NOT_RUNNING || why == WHY_REUSED))
        return;
    pid_t pid = t->discovery.named_pid;
    /* a pid file's problem is a reason of its own (missing, then a FIFO):
     * why and its outcome take 4 bits each of the key */
    assert((unsigned)t->discovery.pidfile.outcome < 16);
    int key = why == WHY_PIDFILE
                  ? (int)why + 16 * ((int)t->discovery.pidfile.outcome + 16 * t->discovery.pidfile.detail)
                  : (int)why;
    if (key == s->why && pid == s->pid) {
        /* the same reason: said already, or held back until its limit lets it */
        if (s->holding && pt_ratelimit_due(&s->limits[s->limiter], now))
            log_stop(t, s, why, hidepid, now);
        return;
    }
    s->why = key;
    s->pid = pid;
    s->limiter = s->followed ? LIMIT_STOPS : limit_of(why, t->discovery.pidfile.outcome);
    s->followed = false;
    s->holding = false;
    log_stop(t, s, why, hidepid, now);
}

bool pt_targetstops_restart_pass(struct pt_target_stops *s, double now, char *tail, size_t len)
{
    return pt_ratelimit_say(&s->limits[LIMIT_STOPS], now, "restarts or stops", tail, len);
}

bool pt_targetstops_unsaid(const struct pt_target_stops *s)
{
    return !s->said_any;
}
