/* discovery: finding the members of a target (tree.h).
 *
 * The roots come from the selector: a pinned pid, a pid file read again
 * at every tick, the launched command and the orphans its tree hands to
 * us as subreaper, the processes the collector's walk offered for a
 * matching selector (procscan.h), or the processes of a cgroup. From the
 * members, new descendants are found through every thread's children
 * file, or from a scan of every process's ppid on a kernel without
 * children files. What joining and leaving mean for the numbers is
 * membership.c's and the ledger's. */
#include "discovery.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "escape.h"
#include "exits.h"
#include "membership.h"
#include "targetcg.h"
#include "targetunit.h"
#include "pidns.h"

/* ---- selector --------------------------------------------------------- */

static int collect_pid(pid_t pid, void *arg);
static int collect_scanned(pid_t pid, const char *group, void *arg);
static void join_pending(struct pt_target *t, bool baseline);

static bool by_cgroups(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_CGROUP || t->selector.kind == PT_SELECT_UNIT;
}

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
};

/* A pid file may name anything: pid 1, a kernel thread or proctree itself
 * would make the target the host (or measure itself). Refused with one
 * line per pid named. */
static bool refused_root(struct pt_target *t, pid_t pid)
{
    struct pt_stat st;
    const char *why =
        pid == 1         ? "init (pid 1): the whole host"
        : pid == t->self ? "proctree itself"
        : pt_read_stat_by_pid(t->proc_root_fd, pid, &t->buf, &st) == PT_READ_OK && (st.flags & PT_PF_KTHREAD)
            ? "a kernel thread"
            : NULL;
    if (why && pid != t->refused_pid)
        pt_target_logf(t, PT_LOG_WARNING, "pid file names pid %d, %s; refused", (int)pid, why);
    t->refused_pid = why ? pid : 0;
    return why != NULL;
}

/* Is the process at pid now another than the root that had that pid
 * (reaped, and the pid given to a new process: a service restarted in a
 * pid namespace of its own gets its old pid again)? */
static bool pid_reused(struct pt_target *t, pid_t pid)
{
    struct pt_stat st;
    return pt_read_stat_by_pid(t->proc_root_fd, pid, &t->buf, &st) == PT_READ_OK && st.starttime != t->root_starttime;
}

/* The pid file names another process than the root: the old tree leaves,
 * the new root joins (below) as a baseline member. */
static bool pidfile_root(struct pt_target *t, pid_t pid)
{
    if (pid > 0 && pid == t->root_pid && pt_target_live_member(t, pid))
        return true; /* the same root: checked when it was named first */
    if (pid <= 0 || refused_root(t, pid))
        return false;
    if (!t->root_pid)
        return true;
    bool moved = pid != t->root_pid;
    if (!moved && !pid_reused(t, pid))
        return true;
    if (pt_target_live_members(t) > 0) {
        if (moved)
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d: the tree of %d leaves the target",
                           (int)pid, (int)t->root_pid, (int)t->root_pid);
        else
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d, now another process: the old tree leaves the target",
                           (int)pid);
        pt_target_leave_all(t);
    } else if (t->empty_why == WHY_NOT_SAID) {
        /* The old tree went between two discoveries and the new root was
         * there at the next: no empty target was said, so no "following
         * again" will be; the restart is said here. */
        if (moved)
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d, which has exited", (int)pid,
                           (int)t->root_pid);
        else
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d, now another process (the old one has exited)",
                           (int)pid);
    }
    return true;
}

/* The root the selector names now, joined as a baseline member when it is
 * new to the tree. A --pid root is pinned to the identity first seen. */
static void resolve_root(struct pt_target *t)
{
    pid_t pid = 0;
    uint64_t expected = 0;
    switch (t->selector.kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD:
        pid = t->selector.pid;
        expected = t->root_starttime;
        break;
    case PT_SELECT_PIDFILE:
        pid = pt_pidfile_read(&t->pidfile, t->selector.path, t->name);
        break;
    default:
        break;
    }
    t->named_pid = pid;
    if (t->selector.kind == PT_SELECT_PIDFILE && !pidfile_root(t, pid))
        return;
    if (t->has_matcher) {
        /* cgroup members are listed by the cgroup; the others were offered
         * by the collector's walk of the proc root */
        if (by_cgroups(t)) {
            pt_buf_reset(&t->scan_groups);
            t->cgroup_unnamed = 0;
            t->cgroup_error = pt_matcher_scan_cgroup(&t->matcher, &t->buf, collect_scanned, t);
            pt_target_unit_scanned(t);
            pt_target_cgroups_found(t);
            pt_target_cgroup_restarts(t);
        }
        join_pending(t, true);
        return;
    }
    if (pid <= 0 || pt_target_live_member(t, pid))
        return;
    if (t->selector.kind != PT_SELECT_PIDFILE && t->root_pid)
        return; /* a pinned root that is gone stays gone */
    /* The launched command was born under our watch: count all of it. */
    struct pt_member *m = pt_target_join(t, pid, expected, t->selector.kind != PT_SELECT_CHILD);
    if (m) {
        /* another root where one was: the service restarted */
        if (t->root_pid && (t->root_pid != pid || t->root_starttime != m->starttime))
            t->restarts++;
        t->root_pid = pid;
        t->root_starttime = m->starttime;
    }
}

/* ---- why there is no live process ---------------------------------------- */

/* A process with this pid exists in our pid namespace, visible or not
 * (kill(pid, 0) checks existence, EPERM included, and sends nothing). */
static bool pid_exists(pid_t pid)
{
    return kill(pid, 0) == 0 || errno == EPERM;
}

/* Why the target is empty; hidepid gets the proc root's option when the
 * reason is that it hides processes (our mountinfo is read only then). */
static enum empty_why why_empty(struct pt_target *t, char *hidepid, size_t hidepid_len)
{
    switch (t->selector.kind) {
    case PT_SELECT_PIDFILE:
        if (t->pidfile.outcome != PT_PIDFILE_PID)
            return WHY_PIDFILE;
        if (t->refused_pid)
            return WHY_REFUSED;
        /* fall through */
    case PT_SELECT_PID:
    case PT_SELECT_CHILD: {
        char entry[16];
        snprintf(entry, sizeof(entry), "%d", (int)t->named_pid);
        if (t->named_pid <= 0)
            return WHY_NOT_RUNNING;
        if (faccessat(t->proc_root_fd, entry, F_OK, 0) == 0)
            return WHY_REUSED;
        if (!pid_exists(t->named_pid))
            return WHY_NOT_RUNNING;
        pt_proc_root_hidepid(t->proc_root_fd, &t->buf, hidepid, hidepid_len);
        return WHY_HIDDEN;
    }
    case PT_SELECT_CGROUP:
    case PT_SELECT_UNIT:
        if (t->cgroup_error == -ENOENT)
            return t->selector.kind == PT_SELECT_UNIT ? WHY_UNIT_GONE : WHY_CGROUP_GONE;
        if (t->cgroup_unnamed > 0 || !pt_pidns_is_hosts(t->proc_root_fd))
            return WHY_UNNAMED;
        return t->selector.kind == PT_SELECT_UNIT ? WHY_UNIT_EMPTY : WHY_CGROUP_EMPTY;
    default:
        return pt_proc_root_hidepid(t->proc_root_fd, &t->buf, hidepid, hidepid_len) ? WHY_NO_MATCH_HIDDEN
                                                                                    : WHY_NO_MATCH;
    }
}

/* pid runs in our pid namespace, the proc root is another's: pids are
 * the proc root's. Where the proc root shows ours, the pid it gives
 * our pid is looked for (one walk, said once). */
static void say_other_namespace(struct pt_target *t, pid_t pid, char *what, size_t whatlen)
{
    pid_t there = t->self != getpid() ? pt_pidns_find_in_root(t->proc_root_fd, t->self, pid, &t->buf) : 0;
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
static bool in_container(struct pt_target *t)
{
    if (pt_pidns_in_container(t->proc_root_fd))
        return true;
    return pt_read_file_at(AT_FDCWD, "/proc/self/mountinfo", &t->buf) > 0 && pt_cgroupfs_shows_part(t->buf.data);
}

/* The cgroup's processes are not this pid namespace's to name: said with
 * what the scan saw and how to have them. */
static void say_unnamed(const struct pt_target *t, char *what, size_t whatlen)
{
    char q[PT_QUOTED_MAX], subject[PT_QUOTED_MAX + 16], count[64];
    if (t->selector.kind == PT_SELECT_UNIT)
        snprintf(subject, sizeof(subject), "unit \"%s\"", pt_escape(q, sizeof(q), pt_matcher_unit(&t->matcher)->name));
    else
        snprintf(subject, sizeof(subject), "cgroup \"%s\"", pt_escape(q, sizeof(q), pt_matcher_cgroup(&t->matcher)));
    if (t->cgroup_unnamed > 0)
        snprintf(count, sizeof(count), "%zu process%s, none of which", t->cgroup_unnamed,
                 t->cgroup_unnamed == 1 ? "" : "es");
    else
        snprintf(count, sizeof(count), "no process that");
    const char *why = !t->proc_root_ours      ? "cgroup.procs lists this pid namespace's pids, and the proc root is "
                                                "another pid namespace's"
                      : t->cgroup_unnamed > 0 ? "they run outside this pid namespace, which is not the host's "
                                                "(cgroup.procs lists them as 0)"
                                              : "this pid namespace is not the host's, and cgroup.procs lists only "
                                                "the processes in it";
    snprintf(what, whatlen,
             "%s has %s this process can name: %s; run in the host's pid namespace (--pid=host in Docker, "
             "hostPID: true in Kubernetes)",
             subject, count, why);
}

/* One line when the target becomes empty, and again when the reason
 * changes; one when it is followed again. */
static void say_why_empty(struct pt_target *t)
{
    if (pt_target_live_members(t) > 0) {
        if (t->empty_why != WHY_NOT_SAID)
            pt_target_logf(t, PT_LOG_INFO, "following pid %d again", (int)t->members[0].pid);
        t->empty_why = WHY_NOT_SAID;
        return;
    }
    char hidepid[32] = "", problem[128], what[PT_QUOTED_MAX + 320], q[PT_QUOTED_MAX];
    enum empty_why why = why_empty(t, hidepid, sizeof(hidepid));
    /* The launched command ends, and its tree with it: the collector says
     * so ("exited with status"), and a discovery between the last reap
     * and the end of the run finds nothing, as it should. */
    if (t->selector.kind == PT_SELECT_CHILD && (why == WHY_NOT_RUNNING || why == WHY_REUSED))
        return;
    pid_t pid = t->named_pid;
    /* a pid file's problem is a reason of its own (missing, then a FIFO) */
    int key = why == WHY_PIDFILE ? (int)why + 16 * ((int)t->pidfile.outcome + 16 * t->pidfile.detail) : (int)why;
    if (key == t->empty_why && pid == t->empty_pid)
        return;
    t->empty_why = key;
    t->empty_pid = pid;
    switch (why) {
    case WHY_PIDFILE: /* its problem other than missing was said by pidfile.c */
        snprintf(what, sizeof(what), "pid file \"%s\" %s", pt_escape(q, sizeof(q), t->selector.path),
                 t->pidfile.outcome == PT_PIDFILE_MISSING && pt_pidfile_problem(&t->pidfile, problem, sizeof(problem))
                     ? problem
                     : "names no pid (see its warning)");
        break;
    case WHY_REFUSED:
        snprintf(what, sizeof(what), "the pid file names pid %d, refused", (int)pid);
        break;
    case WHY_NOT_RUNNING:
        snprintf(what, sizeof(what), pid > 0 ? "pid %d is not running%s" : "no pid named", (int)pid,
                 pid > 0 && t->self == getpid() && !pt_pidns_is_hosts(t->proc_root_fd)
                     ? " in this pid namespace, which is not the host's (a container): a host's pid needs the "
                       "host's /proc as the proc root (--proc-root or HOST_PROC; collectd: ProcRoot)"
                     : "");
        break;
    case WHY_REUSED:
        snprintf(what, sizeof(what), "pid %d has exited (the pid is another process's now)", (int)pid);
        break;
    case WHY_HIDDEN:
        if (hidepid[0])
            snprintf(what, sizeof(what), "pid %d runs but the proc root does not show it: it is mounted %s", (int)pid,
                     hidepid);
        else
            say_other_namespace(t, pid, what, sizeof(what));
        break;
    case WHY_CGROUP_GONE:
        snprintf(what, sizeof(what), "cgroup \"%s\" does not exist%s",
                 pt_escape(q, sizeof(q), pt_matcher_cgroup(&t->matcher)),
                 t->sys_root_default && in_container(t)
                     ? " here: this process runs in a container, whose /sys shows its own cgroups; a host's cgroup "
                       "needs the host's /sys, mounted and named by HOST_SYS or --sys-root (collectd: SysRoot)"
                     : "");
        break;
    case WHY_UNNAMED:
        say_unnamed(t, what, sizeof(what));
        break;
    case WHY_CGROUP_EMPTY:
        snprintf(what, sizeof(what), "cgroup \"%s\" has no process",
                 pt_escape(q, sizeof(q), pt_matcher_cgroup(&t->matcher)));
        break;
    case WHY_UNIT_GONE: {
        const struct pt_sdunit *u = pt_matcher_unit(&t->matcher);
        if (!pt_sdunit_systemd_manages(u)) /* not inactive: no systemd to know (targetunit.c said it) */
            snprintf(what, sizeof(what), "%s \"%s\" has no cgroup: no systemd manages the cgroups read here",
                     u->glob ? "no unit matching" : "unit", pt_escape(q, sizeof(q), u->name));
        else if (u->glob)
            snprintf(what, sizeof(what), "no unit matching \"%s\" is running (none has a cgroup)",
                     pt_escape(q, sizeof(q), u->name));
        else
            snprintf(what, sizeof(what), "unit \"%s\" is %s (it has no cgroup)", pt_escape(q, sizeof(q), u->name),
                     pt_sdunit_state(u));
        break;
    }
    case WHY_UNIT_EMPTY:
        snprintf(what, sizeof(what), "unit \"%s\" has a cgroup but no process",
                 pt_escape(q, sizeof(q), pt_matcher_unit(&t->matcher)->name));
        break;
    case WHY_NO_MATCH:
        snprintf(what, sizeof(what), "no process matches");
        break;
    case WHY_NO_MATCH_HIDDEN:
        snprintf(what, sizeof(what),
                 "no process matches among those shown: the proc root is mounted %s, which hides other "
                 "users' processes (run as root, or in the mount's gid= group)",
                 hidepid);
        break;
    default:
        return;
    }
    pt_target_logf(t, PT_LOG_WARNING, "no live process: %s; will keep looking", what);
}

/* ---- discovery -------------------------------------------------------- */

#define NO_SCAN_GROUP UINT32_MAX

static int collect_pid(pid_t pid, void *arg)
{
    struct pt_target *t = arg;
    if (t->n_pending == t->cap_pending) {
        t->cap_pending = t->cap_pending ? t->cap_pending * 2 : 64;
        t->pending = pt_xrealloc_array(t->pending, t->cap_pending, sizeof(pid_t));
        t->pending_group = pt_xrealloc_array(t->pending_group, t->cap_pending, sizeof(uint32_t));
    }
    t->pending_group[t->n_pending] = NO_SCAN_GROUP;
    t->pending[t->n_pending++] = pid;
    return 0;
}

/* A process of the target's cgroups, and (--by cgroup) its group: the
 * names come in runs (a directory's pids), each kept once. */
static int collect_scanned(pid_t pid, const char *group, void *arg)
{
    struct pt_target *t = arg;
    if (pid <= 0 || !t->proc_root_ours) {
        t->cgroup_unnamed++;
        return 0;
    }
    collect_pid(pid, t);
    if (t->options.breakdown != PT_BY_CGROUP)
        return 0;
    struct pt_buf *names = &t->scan_groups;
    size_t n = t->n_pending;
    uint32_t previous = n > 1 ? t->pending_group[n - 2] : NO_SCAN_GROUP;
    if (previous != NO_SCAN_GROUP && strcmp(names->data + previous, group) == 0) {
        t->pending_group[n - 1] = previous;
        return 0;
    }
    t->pending_group[n - 1] = (uint32_t)names->len;
    pt_buf_append(names, group, strlen(group) + 1);
    return 0;
}

/* Without children files, one scan of the proc root lists every
 * (pid, ppid); the children of a member are then looked up there. */
struct ppid_pair {
    pid_t ppid, pid;
};

static int by_ppid(const void *a, const void *b)
{
    const struct ppid_pair *x = a, *y = b;
    return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

struct ppid_scan {
    struct pt_target *t;
    struct ppid_pair *pairs;
    size_t count, cap;
};

static void add_ppid_pair(pid_t pid, void *arg)
{
    struct ppid_scan *scan = arg;
    struct pt_stat st;
    if (pt_read_stat_by_pid(scan->t->proc_root_fd, pid, &scan->t->buf, &st) != PT_READ_OK)
        return;
    if (scan->count == scan->cap) {
        scan->cap = scan->cap ? scan->cap * 2 : 256;
        scan->pairs = pt_xrealloc_array(scan->pairs, scan->cap, sizeof(*scan->pairs));
    }
    scan->pairs[scan->count++] = (struct ppid_pair){st.ppid, st.pid};
}

static struct ppid_pair *scan_ppids(struct pt_target *t, size_t *count)
{
    struct ppid_scan scan = {.t = t};
    pt_for_each_pid_in(t->proc_root_fd, ".", add_ppid_pair, &scan);
    if (scan.count)
        qsort(scan.pairs, scan.count, sizeof(*scan.pairs), by_ppid);
    *count = scan.count;
    return scan.pairs;
}

static void children_from_scan(struct pt_target *t, const struct ppid_pair *pairs, size_t count, pid_t parent)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pairs[mid].ppid < parent)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < count && pairs[lo].ppid == parent; lo++)
        collect_pid(pairs[lo].pid, t);
}

/* Launch mode: every child of ours is the launched root or an orphan of
 * its tree handed to us as subreaper. */
static void collect_own_children(struct pt_target *t)
{
    char path[64];
    snprintf(path, sizeof(path), "%d/task/%d/children", (int)t->self, (int)t->self);
    ssize_t n = pt_read_file_at(t->proc_root_fd, path, &t->buf);
    if (n > 0)
        pt_parse_children(t->buf.data, (size_t)n, collect_pid, t);
}

static void join_pending(struct pt_target *t, bool baseline)
{
    for (size_t j = 0; j < t->n_pending; j++) {
        if (pt_target_live_member(t, t->pending[j]))
            continue;
        uint32_t group = t->pending_group[j];
        t->join_group = group != NO_SCAN_GROUP ? t->scan_groups.data + group : NULL;
        pt_target_join(t, t->pending[j], 0, baseline);
        t->join_group = NULL;
    }
    t->n_pending = 0;
}

void pt_target_discover(struct pt_target *t)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_target_compact(t);
    resolve_root(t);
    if (t->selector.kind == PT_SELECT_CHILD) {
        collect_own_children(t);
        join_pending(t, false);
    }

    size_t n_pairs = 0;
    struct ppid_pair *pairs = t->scan_fallback ? scan_ppids(t, &n_pairs) : NULL;
    /* Breadth first: members appended while walking are walked too, so a
     * whole new subtree joins in one pass, parents before children. */
    for (size_t i = 0; i < t->n_members; i++) {
        if (t->members[i].gone)
            continue;
        bool baseline = t->members[i].baseline_walk;
        if (t->scan_fallback) {
            children_from_scan(t, pairs, n_pairs, t->members[i].pid);
        } else {
            bool no_children_files = false;
            enum pt_read r =
                pt_member_read_children(&t->members[i], t->proc_root_fd, &t->buf, collect_pid, t, &no_children_files);
            if (r == PT_READ_GONE) {
                t->n_pending = 0;
                pt_target_member_gone(t, &t->members[i]);
                continue;
            }
            if (r == PT_READ_NO_FDS)
                t->short_of_fds |= PT_SHORT_MEMBERS;
            if (no_children_files) {
                pt_target_logf(t, PT_LOG_INFO,
                               "no /proc/PID/task/TID/children (kernel without "
                               "CONFIG_PROC_CHILDREN); discovering by scanning /proc");
                t->scan_fallback = true;
                pairs = scan_ppids(t, &n_pairs);
                i--; /* walk this member again from the scan */
                continue;
            }
        }
        /* the member pointer may move when join() grows the array */
        join_pending(t, baseline);
    }
    free(pairs);
    for (size_t i = 0; i < t->n_members; i++)
        t->members[i].baseline_walk = false;
    /* a zombie among them was in a member's children file, and joined:
     * the others are reaped. By process with exit records a zombie joins
     * from its record only, which the records' drain follows (exits.c) */
    if (!(t->follows_exits && pt_target_by_process(t)))
        pt_pidmap_clear(&t->unjoined_exits);
    pt_target_compact(t);
    pt_target_unit_discovered(t);

    say_why_empty(t);
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;
    pt_target_debug_check(t, "a discovery");
}

bool pt_target_wants_scan(const struct pt_target *t)
{
    return t->has_matcher && !by_cgroups(t);
}

const struct pt_matcher *pt_target_matcher(const struct pt_target *t)
{
    return &t->matcher;
}

void pt_target_offer_root(struct pt_target *t, pid_t pid)
{
    collect_pid(pid, t);
}

/* ---- process events --------------------------------------------------- */

/* Was pid a process of the tree when it forked at time when? A member
 * that joined as (part of) a new root only from its join; one born in the
 * tree, or known from a fork event, always. */
static bool forks_in_tree(const struct pt_target *t, pid_t pid, double when)
{
    const struct pt_member *m = pt_target_live_member(t, pid);
    if (m)
        return m->since <= when;
    return pt_pidmap_get(&t->parent_of_forked, pid) >= 0 || pt_pidmap_get(&t->forks_ours_lately, pid) == 1;
}

/* A fork in the tree: the child joins now, unless it was a member
 * already (discovery read it before this drain) or is gone (its exit
 * is in the same drain: its pid may be another's by now). Then it is
 * counted from the events alone. */
static void follow_start(struct pt_target *t, const struct pt_procevent *e)
{
    pt_pidmap_remove(&t->unjoined_exits, e->pid); /* a new process has the pid */
    if (!forks_in_tree(t, e->parent, e->when) || pt_target_live_member(t, e->pid) ||
        pt_pidmap_get(&t->forks_ours_lately, e->pid) >= 0)
        return;
    struct pt_member *m = e->ends ? NULL : pt_target_join(t, e->pid, 0, false);
    if (m) {
        m->started_at = e->when; /* finer than its starttime's clock tick (exits.c) */
        return;
    }
    t->started++;
    pt_pidmap_put(&t->parent_of_forked, e->pid, (uint32_t)e->parent);
}

/* A process known only from its fork has exited: counted, and kept until
 * the exit records that follow these events have been read (its own, its
 * children's: exits.c finds whose counters their usage went to). */
static void follow_unseen_exit(struct pt_target *t, pid_t pid)
{
    long parent = pt_pidmap_get(&t->parent_of_forked, pid);
    if (parent < 0)
        return;
    pt_pidmap_remove(&t->parent_of_forked, pid);
    t->exited++; /* a member's exit is counted when it is found gone */
    pt_pidmap_put(&t->unjoined_exits, pid, 1);
    if (t->follows_exits)
        pt_pidmap_put(&t->parent_of_unseen_gone, pid, (uint32_t)parent);
}

void pt_target_follow_events(struct pt_target *t, const struct pt_procevent *events, size_t n, bool complete)
{
    double cpu0 = pt_thread_cpu_seconds();
    t->follows_events = true;
    if (!complete) /* exits may be lost: those it knows only from forks would wait forever */
        pt_pidmap_clear(&t->parent_of_forked);
    for (size_t i = 0; i < n; i++) {
        const struct pt_procevent *e = &events[i];
        if (e->kind == PT_PROCEVENT_START)
            follow_start(t, e);
        else if (e->kind == PT_PROCEVENT_EXIT) {
            follow_unseen_exit(t, e->pid);
            pt_target_note_exit(t, e->pid, e->when);
        } else if (e->kind == PT_PROCEVENT_EXEC || e->kind == PT_PROCEVENT_CREDS) {
            pt_target_member_changed(t, e->pid);
        }
    }
    pt_pidmap_clear(&t->forks_ours_lately);
    t->cpu_seconds += pt_thread_cpu_seconds() - cpu0;
    pt_target_debug_check(t, "process events");
}
