/* discovery: finding the members of a target (targetstate.h).
 *
 * The roots come from the selector: a pinned pid, a pid file read again
 * at every tick, the launched command and the orphans its tree hands to
 * us as subreaper, the processes the collector's walk offered for a
 * matching selector (procscan.h), or the processes of a cgroup. From the
 * members, new descendants are found through every thread's children
 * file, or from a scan of every process's ppid on a kernel without
 * children files. What joining and leaving mean for the numbers is
 * membership.c's and the ledger's; the process events are followed in
 * targetevents.c, an empty target's lines said in targetstops.c. */
#include "tree/discovery.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/escape.h"

#include "tree/membership.h"
#include "tree/targetcg.h"
#include "tree/targetstops.h"
#include "tree/targetevents.h"
#include "accounting/interval.h"
#include "tree/targetunit.h"

/* ---- selector --------------------------------------------------------- */

static int collect_pid(pid_t pid, void *arg);
static int collect_scanned(pid_t pid, const char *group, void *arg);
static void join_pending(struct pt_target *t, bool baseline);

static bool by_cgroups(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_CGROUP || t->selector.kind == PT_SELECT_UNIT;
}

/* A pid file may name anything: pid 1, a kernel thread or proctree itself
 * would make the target the host (or measure itself). Refused with one
 * line per pid named, at most one a period (a hostile file may name pid 1
 * and pid 2 in turn). */
static bool refused_root(struct pt_target *t, pid_t pid, double now)
{
    struct pt_stat st;
    char more[96];
    const char *why =
        pid == 1         ? "init (pid 1): the whole host"
        : pid == t->self ? "proctree itself"
        : pt_read_stat_by_pid(t->proc_root_fd, pid, t->buf, &st) == PT_READ_OK && (st.flags & PT_PF_KTHREAD)
            ? "a kernel thread"
            : NULL;
    if (why && pid != t->discovery.refused_pid &&
        pt_ratelimit_say(&t->discovery.refused_said, now, "like it", more, sizeof(more))) {
        pt_target_logf(t, PT_LOG_WARNING, "pid file names pid %d, %s; refused%s", (int)pid, why, more);
    }
    t->discovery.refused_pid = why ? pid : 0;
    return why != NULL;
}

/* Is the process at pid now another than the root that had that pid
 * (reaped, and the pid given to a new process: a service restarted in a
 * pid namespace of its own gets its old pid again)? */
static bool pid_reused(struct pt_target *t, pid_t pid)
{
    struct pt_stat st;
    return pt_read_stat_by_pid(t->proc_root_fd, pid, t->buf, &st) == PT_READ_OK &&
           st.starttime != t->discovery.root_starttime;
}

/* The pid file names another process than the root: the old tree leaves,
 * the new root joins (below) as a baseline member. Said at most once a
 * period, with the target's stops (pt_targetstops_restart_pass): a service
 * that crash-loops restarts at every discovery. */
static bool pidfile_root(struct pt_target *t, pid_t pid, double now)
{
    if (pid > 0 && pid == t->discovery.root_pid && pt_target_live_member(t, pid))
        return true; /* the same root: checked when it was named first */
    if (pid <= 0 || refused_root(t, pid, now))
        return false;
    if (!t->discovery.root_pid)
        return true;
    bool moved = pid != t->discovery.root_pid;
    if (!moved && !pid_reused(t, pid))
        return true;
    char more[96];
    if (pt_target_live_members(t) > 0) {
        bool say = pt_targetstops_restart_pass(&t->stops, now, more, sizeof(more));
        if (say && moved)
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d: the tree of %d leaves the target%s",
                           (int)pid, (int)t->discovery.root_pid, (int)t->discovery.root_pid, more);
        else if (say)
            pt_target_logf(t, PT_LOG_INFO,
                           "pid file names pid %d, now another process: the old tree leaves the target%s", (int)pid,
                           more);
        pt_target_leave_all(t);
    } else if (pt_targetstops_unsaid(&t->stops) && pt_targetstops_restart_pass(&t->stops, now, more, sizeof(more))) {
        /* The old tree went between two discoveries and the new root was
         * there at the next, or its line was held back: no empty target
         * was said, so no "following again" will be; the restart is said
         * here. */
        if (moved)
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d, which has exited%s", (int)pid,
                           (int)t->discovery.root_pid, more);
        else
            pt_target_logf(t, PT_LOG_INFO, "pid file names pid %d, now another process (the old one has exited)%s",
                           (int)pid, more);
    }
    return true;
}

/* What the scans of the cgroups could not use, each said once. */
static void say_scan_notes(struct pt_target *t)
{
    static const char *const why[PT_CGSCAN_KINDS] = {
        "is on no cgroup filesystem (statfs type not cgroup2 or cgroup): refused, its cgroup.procs could "
        "name any process",
        "is no regular file (a FIFO, a device, a link): not read, its processes are not followed",
        "has sub-cgroups below the depth scanned: they are not scanned, their processes are missed unless a "
        "member forks them",
    };
    struct pt_cgscan_notes *n = pt_matcher_notes(&t->matcher);
    for (unsigned i = 0; i < PT_CGSCAN_KINDS; i++) {
        if (!(n->met & ~n->said & (1u << i)))
            continue;
        n->said |= 1u << i;
        char q[PT_QUOTED_MAX], depth[64] = "";
        if (1u << i == PT_CGSCAN_TOO_DEEP)
            snprintf(depth, sizeof(depth), " (%d levels below the target's cgroup are scanned)", PT_CGROUP_SCAN_DEPTH);
        pt_target_logf(t, PT_LOG_WARNING, "\"%s\" %s%s", pt_escape(q, sizeof(q), n->path[i]), why[i], depth);
    }
}

/* The root the selector names now, joined as a baseline member when it is
 * new to the tree. A --pid root is pinned to the identity first seen. */
static void resolve_root(struct pt_target *t, double now)
{
    pid_t pid = 0;
    uint64_t expected = 0;
    switch (t->selector.kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD:
        pid = t->selector.pid;
        expected = t->discovery.root_starttime;
        break;
    case PT_SELECT_PIDFILE:
        pid = pt_pidfile_read(&t->discovery.pidfile, t->selector.path, t->name, now);
        break;
    default:
        break;
    }
    t->discovery.named_pid = pid;
    if (t->selector.kind == PT_SELECT_PIDFILE && !pidfile_root(t, pid, now))
        return;
    if (t->has_matcher) {
        /* cgroup members are listed by the cgroup; the others were offered
         * by the collector's walk of the proc root */
        if (by_cgroups(t)) {
            pt_buf_reset(&t->discovery.scan_groups);
            t->discovery.cgroup_unnamed = 0;
            t->discovery.cgroup_error = pt_matcher_scan_cgroup(&t->matcher, t->buf, collect_scanned, t);
            if (pt_targetunit_scanned(&t->unit, t)) {
                char more[96];
                if (pt_targetstops_restart_pass(&t->stops, now, more, sizeof(more)))
                    pt_targetunit_say_moved(t, more);
                pt_target_leave_all(t);
            }
            say_scan_notes(t);
            pt_targetcg_found(&t->cg, t, now);
            if (pt_targetcg_restarted(&t->cg, t))
                pt_interval_add_restart(&t->interval);
        }
        join_pending(t, true);
        return;
    }
    if (pid <= 0 || pt_target_live_member(t, pid))
        return;
    if (t->selector.kind != PT_SELECT_PIDFILE && t->discovery.root_pid)
        return; /* a pinned root that is gone stays gone */
    /* The launched command was born under our watch: count all of it. */
    struct pt_member *m = pt_target_join(t, pid, expected, t->selector.kind != PT_SELECT_CHILD);
    if (m) {
        /* another root where one was: the service restarted */
        if (t->discovery.root_pid && (t->discovery.root_pid != pid || t->discovery.root_starttime != m->starttime))
            pt_interval_add_restart(&t->interval);
        t->discovery.root_pid = pid;
        t->discovery.root_starttime = m->starttime;
    }
}

/* ---- discovery -------------------------------------------------------- */

#define NO_SCAN_GROUP UINT32_MAX

static int collect_pid(pid_t pid, void *arg)
{
    struct pt_target *t = arg;
    if (t->discovery.n_pending == t->discovery.cap_pending) {
        t->discovery.cap_pending = t->discovery.cap_pending ? t->discovery.cap_pending * 2 : 64;
        t->discovery.pending = pt_xrealloc_array(t->discovery.pending, t->discovery.cap_pending, sizeof(pid_t));
        t->discovery.pending_group =
            pt_xrealloc_array(t->discovery.pending_group, t->discovery.cap_pending, sizeof(uint32_t));
    }
    assert(t->discovery.n_pending < t->discovery.cap_pending);
    t->discovery.pending_group[t->discovery.n_pending] = NO_SCAN_GROUP;
    t->discovery.pending[t->discovery.n_pending++] = pid;
    return 0;
}

/* A process of the target's cgroups, and (--by cgroup) its group: the
 * names come in runs (a directory's pids), each kept once. */
static int collect_scanned(pid_t pid, const char *group, void *arg)
{
    struct pt_target *t = arg;
    if (pid <= 0 || !t->proc_root_ours) {
        t->discovery.cgroup_unnamed++;
        return 0;
    }
    collect_pid(pid, t);
    if (t->options.breakdown != PT_BY_CGROUP)
        return 0;
    struct pt_buf *names = &t->discovery.scan_groups;
    size_t n = t->discovery.n_pending;
    uint32_t previous = n > 1 ? t->discovery.pending_group[n - 2] : NO_SCAN_GROUP;
    if (previous != NO_SCAN_GROUP && strcmp(names->data + previous, group) == 0) {
        t->discovery.pending_group[n - 1] = previous;
        return 0;
    }
    assert(names->len < NO_SCAN_GROUP); /* an offset, told from "found by its parent" */
    t->discovery.pending_group[n - 1] = (uint32_t)names->len;
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
    if (pt_read_stat_by_pid(scan->t->proc_root_fd, pid, scan->t->buf, &st) != PT_READ_OK)
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
    ssize_t n = pt_read_file_at(t->proc_root_fd, path, t->buf);
    if (n > 0)
        pt_parse_children(t->buf->data, (size_t)n, collect_pid, t);
}

static void join_pending(struct pt_target *t, bool baseline)
{
    for (size_t j = 0; j < t->discovery.n_pending; j++) {
        if (pt_target_live_member(t, t->discovery.pending[j]))
            continue;
        uint32_t group = t->discovery.pending_group[j];
        assert(group == NO_SCAN_GROUP || group < t->discovery.scan_groups.len);
        t->discovery.join_group = group != NO_SCAN_GROUP ? t->discovery.scan_groups.data + group : NULL;
        pt_target_join(t, t->discovery.pending[j], 0, baseline);
        t->discovery.join_group = NULL;
    }
    t->discovery.n_pending = 0;
}

void pt_target_discover(struct pt_target *t, double now)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_target_compact(t);
    resolve_root(t, now);
    if (t->selector.kind == PT_SELECT_CHILD) {
        collect_own_children(t);
        join_pending(t, false);
    }

    size_t n_pairs = 0;
    struct ppid_pair *pairs = t->discovery.scan_fallback ? scan_ppids(t, &n_pairs) : NULL;
    /* Breadth first: members appended while walking are walked too, so a
     * whole new subtree joins in one pass, parents before children. */
    for (size_t i = 0; i < t->membership.n_members; i++) {
        if (t->membership.members[i].gone)
            continue;
        bool baseline = t->membership.members[i].baseline_walk;
        if (t->discovery.scan_fallback) {
            children_from_scan(t, pairs, n_pairs, t->membership.members[i].pid);
        } else {
            bool no_children_files = false;
            enum pt_read r = pt_member_read_children(&t->membership.members[i], t->proc_root_fd, t->buf, collect_pid, t,
                                                     &no_children_files);
            if (r == PT_READ_GONE) {
                t->discovery.n_pending = 0;
                pt_target_member_gone(t, &t->membership.members[i]);
                continue;
            }
            if (r == PT_READ_NO_FDS)
                pt_interval_add_short(&t->interval, PT_SHORT_MEMBERS);
            if (no_children_files) {
                pt_target_logf(t, PT_LOG_INFO,
                               "no /proc/PID/task/TID/children (kernel without "
                               "CONFIG_PROC_CHILDREN); discovering by scanning /proc");
                t->discovery.scan_fallback = true;
                pairs = scan_ppids(t, &n_pairs);
                i--; /* walk this member again from the scan */
                continue;
            }
        }
        /* the member pointer may move when join() grows the array */
        join_pending(t, baseline);
    }
    free(pairs);
    for (size_t i = 0; i < t->membership.n_members; i++)
        t->membership.members[i].baseline_walk = false;
    pt_target_events_discovered(t);
    pt_target_compact(t);
    pt_targetunit_discovered(&t->unit, t);

    pt_targetstops_say_why_empty(&t->stops, t, now);
    pt_interval_add_cpu(&t->interval, pt_thread_cpu_seconds() - cpu0);
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

void pt_target_discovery_free(struct pt_target *t)
{
    free(t->discovery.pending);
    free(t->discovery.pending_group);
    pt_buf_free(&t->discovery.scan_groups);
}
