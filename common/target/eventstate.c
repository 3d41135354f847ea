/* eventstate: what following the process events keeps between drains. */
#include "target/eventstate.h"

void pt_events_drain_begins(struct pt_target *t, bool complete)
{
    t->events.follows = true;
    if (!complete)
        pt_pidmap_clear(&t->events.parent_of_forked);
}

void pt_events_drain_done(struct pt_target *t)
{
    pt_pidmap_clear(&t->events.forks_ours_lately);
}

void pt_events_forked(struct pt_target *t, pid_t pid)
{
    pt_pidmap_remove(&t->events.unjoined_exits, pid);
}

void pt_events_forked_unjoined(struct pt_target *t, pid_t pid, pid_t parent)
{
    pt_pidmap_put(&t->events.parent_of_forked, pid, (uint32_t)parent);
}

pid_t pt_events_exited(struct pt_target *t, pid_t pid)
{
    long parent = pt_pidmap_get(&t->events.parent_of_forked, pid);
    if (parent < 0)
        return -1;
    pt_pidmap_remove(&t->events.parent_of_forked, pid);
    pt_pidmap_put(&t->events.unjoined_exits, pid, 1);
    return (pid_t)parent;
}

bool pt_events_joins_exited(struct pt_target *t, pid_t pid)
{
    return pt_pidmap_remove(&t->events.unjoined_exits, pid);
}

bool pt_events_joins_forked(struct pt_target *t, pid_t pid)
{
    return pt_pidmap_remove(&t->events.parent_of_forked, pid);
}

void pt_events_member_moved(struct pt_target *t, pid_t pid, bool forks_ours)
{
    if (t->events.follows)
        pt_pidmap_put(&t->events.forks_ours_lately, pid, forks_ours);
}

void pt_events_unjoined_exits_settled(struct pt_target *t)
{
    pt_pidmap_clear(&t->events.unjoined_exits);
}

void pt_events_free(struct pt_target *t)
{
    pt_pidmap_free(&t->events.parent_of_forked);
    pt_pidmap_free(&t->events.forks_ours_lately);
    pt_pidmap_free(&t->events.unjoined_exits);
}
