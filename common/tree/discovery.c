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

#include "util/escape.h"

#include "member/membersource.h"
#include "tree/membership.h"
#include "tree/sampling.h"
#include "tree/targetcg.h"
#include "tree/targetstops.h"
#include "tree/targetevents.h"
#include "accounting/interval.h"
#include "tree/targetunit.h"
#include "procfs/pidwalk.h"

/* ---- selector --------------------------------------------------------- */

/* collect_scanned's argument: the target to read, its discovery to write. */
struct scanned {
    const struct pt_target *t;
    struct pt_target_discovery *d;
};

static int collect_pid(pid_t pid, void *arg);
static int collect_scanned(pid_t pid, const char *group, void *arg);
static void join_pending(const struct pt_target *t, const struct pt_discovery_parts *dp, bool baseline);

static bool by_cgroups(const struct pt_target *t)
{
    return t->selector.kind == PT_SELECT_CGROUP || t->selector.kind == PT_SELECT_UNIT;
}

/* A pid file may name anything: pid 1, a kernel thread or proctree itself
 * would make the target the host (or measure itself). Refused with one
 * line per pid named, at most one a period (a hostile file may name pid 1
 * and pid 2 in turn). */
static bool refused_root(const struct pt_target *t, const struct pt_discovery_parts *dp, pid_t pid, double now)
{
    struct pt_stat st;
    char more[96];
    const char *why =
        pid == 1         ? "init (pid 1): the whole host"
        : pid == t->self ? "proctree itself"
        : pt_member_read_stat_by_pid(t->proc_root_fd, pid, t->buf, &st) == PT_READ_OK && (st.flags & PT_PF_KTHREAD)
            ? "a kernel thread"
            : NULL;
    if (why && pid != dp->d->refused_pid &&
        pt_ratelimit_say(&dp->d->refused_said, now, "like it", more, sizeof(more))) {
        pt_targetstate_logf(t, PT_LOG_WARNING, "pid file names pid %d, %s; refused%s", (int)pid, why, more);
    }
    dp->d->refused_pid = why ? pid : 0;
    return why != NULL;
}

/* Is the process at pid now another than the root that had that pid
 * (reaped, and the pid given to a new process: a service restarted in a
 * pid namespace of its own gets its old pid again)? */
static bool pid_reused(const struct pt_target *t, pid_t pid)
{
    struct pt_stat st;
    return pt_member_read_stat_by_pid(t->proc_root_fd, pid, t->buf, &st) == PT_READ_OK &&
           st.starttime != t->discovery.root_starttime;
}

/* The pid file names another process than the root: the old tree leaves,
 * the new root joins (below) as a baseline member. Said at most once a
 * period, with the target's stops (pt_targetstops_restart_pass): a service
 * that crash-loops restarts at every discovery. */
static bool pidfile_root(const struct pt_target *t, const struct pt_discovery_parts *dp, pid_t pid, double now)
{
    if (pid > 0 && pid == dp->d->root_pid && pt_targetstate_live_member(t, pid))
        return true; /* the same root: checked when it was named first */
    if (pid <= 0 || refused_root(t, dp, pid, now))
        return false;
    if (!dp->d->root_pid)
        return true;
    bool moved = pid != dp->d->root_pid;
    if (!moved && !pid_reused(t, pid))
        return true;
    char more[96];
    if (pt_targetstate_live_members(t) > 0) {
        bool say = pt_targetstops_restart_pass(dp->stops, now, more, sizeof(more));
        if (say && moved)
            pt_targetstate_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d: the tree of %d leaves the target%s",
                                (int)pid, (int)dp->d->root_pid, (int)dp->d->root_pid, more);
        else if (say)
            pt_targetstate_logf(t, PT_LOG_INFO,
                                "pid file names pid %d, now another process: the old tree leaves the target%s",
                                (int)pid, more);
        pt_membership_leave_all(t, dp->mp);
    } else if (pt_targetstops_unsaid(dp->stops) && pt_targetstops_restart_pass(dp->stops, now, more, sizeof(more))) {
        /* The old tree went between two discoveries and the new root was
         * there at the next, or its line was held back: no empty target
         * was said, so no "following again" will be; the restart is said
         * here. */
        if (moved)
            pt_targetstate_logf(t, PT_LOG_INFO, "pid file names pid %d now, was %d, which has exited%s", (int)pid,
                                (int)dp->d->root_pid, more);
        else
            pt_targetstate_logf(t, PT_LOG_INFO, "pid file names pid %d, now another process (the old one has exited)%s",
                                (int)pid, more);
    }
    return true;
}

/* What the scans of the cgroups could not use, each said once. */
static void say_scan_notes(const struct pt_target *t, const struct pt_discovery_parts *dp)
{
    static const char *const why[PT_CGSCAN_KINDS] = {
        "is on no cgroup filesystem (statfs type not cgroup2 or cgroup): refused, its cgroup.procs could "
        "name any process",
        "is no regular file (a FIFO, a device, a link): not read, its processes are not followed",
        "has sub-cgroups below the depth scanned: they are not scanned, their processes are missed unless a "
        "member forks them",
    };
    struct pt_cgscan_notes *n = pt_matcher_notes(dp->matcher);
    for (unsigned i = 0; i < PT_CGSCAN_KINDS; i++) {
        if (!(n->met & ~n->said & (1u << i)))
            continue;
        n->said |= 1u << i;
        char q[PT_QUOTED_MAX], depth[64] = "";
        if (1u << i == PT_CGSCAN_TOO_DEEP)
            snprintf(depth, sizeof(depth), " (%d levels below the target's cgroup are scanned)", PT_CGROUP_SCAN_DEPTH);
        pt_targetstate_logf(t, PT_LOG_WARNING, "\"%s\" %s%s", pt_escape(n->path[i], q, sizeof(q)), why[i], depth);
    }
}

/* The root the selector names now, joined as a baseline member when it is
 * new to the tree. A --pid root is pinned to the identity first seen. */
static void resolve_root(const struct pt_target *t, const struct pt_discovery_parts *dp, double now)
{
    pid_t pid = 0;
    uint64_t expected = 0;
    switch (t->selector.kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD:
        pid = t->selector.pid;
        expected = dp->d->root_starttime;
        break;
    case PT_SELECT_PIDFILE:
        pid = pt_pidfile_read(&dp->d->pidfile, t->selector.path, t->name, now);
        break;
    default:
        break;
    }
    dp->d->named_pid = pid;
    if (t->selector.kind == PT_SELECT_PIDFILE && !pidfile_root(t, dp, pid, now))
        return;
    if (t->has_matcher) {
        /* cgroup members are listed by the cgroup; the others were offered
         * by the collector's walk of the proc root */
        if (by_cgroups(t)) {
            pt_buf_reset(&dp->d->scan_groups);
            dp->d->cgroup_unnamed = 0;
            dp->d->cgroup_error =
                pt_matcher_scan_cgroup(dp->matcher, t->buf, collect_scanned, &(struct scanned){t, dp->d});
            if (pt_targetunit_scanned(t, dp->unit)) {
                char more[96];
                if (pt_targetstops_restart_pass(dp->stops, now, more, sizeof(more)))
                    pt_targetunit_say_moved(t, more);
                pt_membership_leave_all(t, dp->mp);
            }
            say_scan_notes(t, dp);
            pt_targetcg_found(t, dp->cg, now);
            if (pt_targetcg_restarted(t, dp->cg))
                pt_interval_add_restart(dp->mp->interval);
        }
        join_pending(t, dp, true);
        return;
    }
    if (pid <= 0 || pt_targetstate_live_member(t, pid))
        return;
    if (t->selector.kind != PT_SELECT_PIDFILE && dp->d->root_pid)
        return; /* a pinned root that is gone stays gone */
    /* The launched command was born under our watch: count all of it. */
    const struct pt_member *m = pt_membership_join(t, dp->mp, pid, expected, t->selector.kind != PT_SELECT_CHILD);
    if (m) {
        /* another root where one was: the service restarted */
        if (dp->d->root_pid && (dp->d->root_pid != pid || dp->d->root_starttime != m->starttime))
            pt_interval_add_restart(dp->mp->interval);
        dp->d->root_pid = pid;
        dp->d->root_starttime = m->starttime;
    }
}

/* ---- discovery -------------------------------------------------------- */

#define NO_SCAN_GROUP UINT32_MAX

static int collect_pid(pid_t pid, void *arg)
{
    struct pt_target_discovery *d = arg;
    if (d->n_pending == d->cap_pending) {
        d->cap_pending = d->cap_pending ? d->cap_pending * 2 : 64;
        d->pending = pt_xrealloc_array(d->pending, d->cap_pending, sizeof(pid_t));
        d->pending_group = pt_xrealloc_array(d->pending_group, d->cap_pending, sizeof(uint32_t));
    }
    assert(d->n_pending < d->cap_pending);
    d->pending_group[d->n_pending] = NO_SCAN_GROUP;
    d->pending[d->n_pending++] = pid;
    return 0;
}

/* A process of the target's cgroups, and (--by cgroup) its group: the
 * names come in runs (a directory's pids), each kept once. */
static int collect_scanned(pid_t pid, const char *group, void *arg)
{
    const struct pt_target *t = ((struct scanned *)arg)->t;
    struct pt_target_discovery *d = ((struct scanned *)arg)->d;
    if (pid <= 0 || !t->proc_root_ours) {
        d->cgroup_unnamed++;
        return 0;
    }
    collect_pid(pid, d);
    if (t->options.breakdown != PT_BY_CGROUP)
        return 0;
    struct pt_buf *names = &d->scan_groups;
    size_t n = d->n_pending;
    uint32_t previous = n > 1 ? d->pending_group[n - 2] : NO_SCAN_GROUP;
    if (previous != NO_SCAN_GROUP && strcmp(names->data + previous, group) == 0) {
        d->pending_group[n - 1] = previous;
        return 0;
    }
    assert(names->len < NO_SCAN_GROUP); /* an offset, told from "found by its parent" */
    d->pending_group[n - 1] = (uint32_t)names->len;
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
    const struct pt_target *t;
    struct ppid_pair *pairs;
    size_t count, cap;
};

static void add_ppid_pair(pid_t pid, void *arg)
{
    struct ppid_scan *scan = arg;
    struct pt_stat st;
    if (pt_member_read_stat_by_pid(scan->t->proc_root_fd, pid, scan->t->buf, &st) != PT_READ_OK)
        return;
    if (scan->count == scan->cap) {
        scan->cap = scan->cap ? scan->cap * 2 : 256;
        scan->pairs = pt_xrealloc_array(scan->pairs, scan->cap, sizeof(*scan->pairs));
    }
    scan->pairs[scan->count++] = (struct ppid_pair){st.ppid, st.pid};
}

static struct ppid_pair *scan_ppids(const struct pt_target *t, size_t *count)
{
    struct ppid_scan scan = {.t = t};
    pt_pidwalk_each(t->proc_root_fd, ".", add_ppid_pair, &scan);
    if (scan.count)
        qsort(scan.pairs, scan.count, sizeof(*scan.pairs), by_ppid);
    *count = scan.count;
    return scan.pairs;
}

static void children_from_scan(struct pt_target_discovery *d, const struct ppid_pair *pairs, size_t count, pid_t parent)
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
        collect_pid(pairs[lo].pid, d);
}

/* Launch mode: every child of ours is the launched root or an orphan of
 * its tree handed to us as subreaper. */
static void collect_own_children(const struct pt_target *t, struct pt_target_discovery *d)
{
    char path[64];
    snprintf(path, sizeof(path), "%d/task/%d/children", (int)t->self, (int)t->self);
    ssize_t n = pt_procfs_read_file_at(t->proc_root_fd, path, t->buf);
    if (n > 0)
        pt_pidparse_children(t->buf->data, (size_t)n, collect_pid, d);
}

static void join_pending(const struct pt_target *t, const struct pt_discovery_parts *dp, bool baseline)
{
    for (size_t j = 0; j < dp->d->n_pending; j++) {
        if (pt_targetstate_live_member(t, dp->d->pending[j]))
            continue;
        uint32_t group = dp->d->pending_group[j];
        assert(group == NO_SCAN_GROUP || group < dp->d->scan_groups.len);
        dp->d->join_group = group != NO_SCAN_GROUP ? dp->d->scan_groups.data + group : NULL;
        pt_membership_join(t, dp->mp, dp->d->pending[j], 0, baseline);
        dp->d->join_group = NULL;
    }
    dp->d->n_pending = 0;
}

void pt_discovery_run(const struct pt_target *t, const struct pt_discovery_parts *dp, double now)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_membership_compact(dp->mp);
    resolve_root(t, dp, now);
    if (t->selector.kind == PT_SELECT_CHILD) {
        collect_own_children(t, dp->d);
        join_pending(t, dp, false);
    }

    size_t n_pairs = 0;
    struct ppid_pair *pairs = dp->d->scan_fallback ? scan_ppids(t, &n_pairs) : NULL;
    /* one pass of the iterator for every member's children (those that
     * join during the walk read their files) */
    if (!dp->d->scan_fallback && pt_sampling_pass_pays(t))
        pt_sampling_snapshot(t, PT_TR_MODE_CHILDREN, false);
    /* Breadth first: members appended while walking are walked too, so a
     * whole new subtree joins in one pass, parents before children. */
    for (size_t i = 0; i < t->membership.n_members; i++) {
        if (t->membership.members[i].gone)
            continue;
        bool baseline = t->membership.members[i].baseline_walk;
        if (dp->d->scan_fallback) {
            children_from_scan(dp->d, pairs, n_pairs, t->membership.members[i].pid);
        } else {
            bool no_children_files = false;
            enum pt_read r = pt_membersource_children(&t->membership.members[i], t->proc_root_fd, t->buf, collect_pid,
                                                      dp->d, &no_children_files);
            if (r == PT_READ_GONE) {
                dp->d->n_pending = 0;
                pt_membership_member_gone(t, dp->mp, &t->membership.members[i]);
                continue;
            }
            if (r == PT_READ_NO_FDS)
                pt_interval_add_short(dp->mp->interval, PT_SHORT_MEMBERS);
            if (no_children_files) {
                pt_targetstate_logf(t, PT_LOG_INFO,
                                    "no /proc/PID/task/TID/children (kernel without "
                                    "CONFIG_PROC_CHILDREN); discovering by scanning /proc");
                dp->d->scan_fallback = true;
                pairs = scan_ppids(t, &n_pairs);
                i--; /* walk this member again from the scan */
                continue;
            }
        }
        /* the member pointer may move when join() grows the array */
        join_pending(t, dp, baseline);
    }
    free(pairs);
    pt_sampling_forget_snapshot(t);
    for (size_t i = 0; i < t->membership.n_members; i++)
        t->membership.members[i].baseline_walk = false;
    pt_targetevents_discovered(t, dp->mp->events);
    pt_membership_compact(dp->mp);
    pt_targetunit_discovered(t, dp->unit);

    pt_targetstops_say_why_empty(t, dp->stops, now);
    pt_interval_add_cpu(dp->mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "a discovery");
}

bool pt_discovery_wants_scan(const struct pt_target *t)
{
    return t->has_matcher && !by_cgroups(t);
}

const struct pt_matcher *pt_discovery_matcher(const struct pt_target *t)
{
    return &t->matcher;
}

void pt_discovery_offer_root(struct pt_target_discovery *d, pid_t pid)
{
    collect_pid(pid, d);
}

void pt_discovery_free(struct pt_target_discovery *d)
{
    free(d->pending);
    free(d->pending_group);
    pt_buf_free(&d->scan_groups);
}
