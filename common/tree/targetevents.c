/* targetevents: the process events of one drain, followed by a target. */
#include "tree/targetevents.h"

#include "netlink/eventbook.h"
#include "tree/exits.h"
#include "tree/membership.h"
#include "accounting/interval.h"
#include "member/member.h"

/* Was pid a process of the tree when it forked at time when? A member
 * that joined as (part of) a new root only from its join; one born in the
 * tree, or known from a fork event, always, but for a member whose exit
 * came before, not found gone yet: its other threads may live on and
 * fork, or a new process has the pid (a host-wide fork storm hands it out
 * again within a second or two where pid_max is 32768), which its
 * identity check tells. */
static bool forks_in_tree(const struct pt_target *t, pid_t pid, double when)
{
    const struct pt_member *m = pt_targetstate_live_member(t, pid);
    if (m)
        return m->since <= when &&
               (m->exited_at <= 0 || m->exited_at > when || pt_member_check_identity(m, t->proc_root_fd) == PT_READ_OK);
    return pt_pidmap_get(&t->events.parent_of_forked, pid) >= 0 ||
           pt_pidmap_get(&t->events.forks_ours_lately, pid) == 1;
}

/* A fork in the tree: the child joins now, unless it was a member
 * already (discovery read it before this drain) or is gone (its exit
 * is in the same drain: its pid may be another's by now). Then it is
 * counted from the events alone. */
static void follow_start(const struct pt_target *t, const struct pt_membership_parts *mp, const struct pt_procevent *e)
{
    pt_eventbook_forked(mp->events, e->pid); /* a new process has the pid */
    if (!forks_in_tree(t, e->parent, e->when) || pt_targetstate_live_member(t, e->pid) ||
        pt_pidmap_get(&t->events.forks_ours_lately, e->pid) >= 0)
        return;
    struct pt_member *m = e->ends ? NULL : pt_membership_join(t, mp, e->pid, 0, false);
    if (m) {
        m->started_at = e->when; /* finer than its starttime's clock tick (exits.c) */
        return;
    }
    pt_interval_add_started(mp->interval);
    pt_eventbook_forked_unjoined(mp->events, e->pid, e->parent);
}

/* A process known only from its fork has exited: counted, and kept until
 * the exit records that follow these events have been read (its own, its
 * children's: exits.c finds whose counters their usage went to). */
static void follow_unseen_exit(const struct pt_membership_parts *mp, struct pt_target_exits *x, pid_t pid)
{
    pid_t parent = pt_eventbook_exited(mp->events, pid);
    if (parent < 0)
        return;
    pt_interval_add_exited(mp->interval); /* a member's exit is counted when it is found gone */
    pt_exits_unseen_gone(x, pid, parent);
}

void pt_targetevents_follow(const struct pt_target *t, struct pt_target_exits *x, const struct pt_membership_parts *mp,
                            const struct pt_procevent *events, size_t n, bool complete)
{
    double cpu0 = pt_thread_cpu_seconds();
    pt_eventbook_drain_begins(mp->events, complete);
    for (size_t i = 0; i < n; i++) {
        const struct pt_procevent *e = &events[i];
        if (e->kind == PT_PROCEVENT_START)
            follow_start(t, mp, e);
        else if (e->kind == PT_PROCEVENT_EXIT) {
            follow_unseen_exit(mp, x, e->pid);
            pt_exits_note_exit(t, e->pid, e->when);
        } else if (e->kind == PT_PROCEVENT_EXEC || e->kind == PT_PROCEVENT_CREDS) {
            pt_membership_member_changed(t, mp, e->pid);
        }
    }
    pt_eventbook_drain_done(mp->events);
    pt_interval_add_cpu(mp->interval, pt_thread_cpu_seconds() - cpu0);
    pt_targetstate_debug_check(t, "process events");
}

void pt_targetevents_discovered(const struct pt_target *t, struct pt_eventbook *events)
{
    /* a zombie among them was in a member's children file, and joined:
     * the others are reaped. With a breakdown by name (process, title, thread)
     * and exit records a zombie joins from its record only, which the
     * records' drain follows (exits.c) */
    if (!(t->exits.follows && pt_target_groups_by_name(t)))
        pt_eventbook_unjoined_exits_settled(events);
}
