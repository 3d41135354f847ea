/* eventbook: what one tree following the process events keeps between drains. */
#include "netlink/eventbook.h"

void pt_eventbook_listened(struct pt_eventbook *b)
{
    b->follows = true;
}

void pt_eventbook_drain_begins(struct pt_eventbook *b, bool complete)
{
    b->follows = true;
    if (!complete)
        pt_pidmap_clear(&b->parent_of_forked);
}

void pt_eventbook_drain_done(struct pt_eventbook *b)
{
    pt_pidmap_clear(&b->forks_ours_lately);
}

void pt_eventbook_forked(struct pt_eventbook *b, pid_t pid)
{
    pt_pidmap_remove(&b->unjoined_exits, pid);
}

void pt_eventbook_forked_unjoined(struct pt_eventbook *b, pid_t pid, pid_t parent)
{
    pt_pidmap_put(&b->parent_of_forked, pid, (uint32_t)parent);
}

pid_t pt_eventbook_exited(struct pt_eventbook *b, pid_t pid)
{
    long parent = pt_pidmap_get(&b->parent_of_forked, pid);
    if (parent < 0)
        return -1;
    pt_pidmap_remove(&b->parent_of_forked, pid);
    pt_pidmap_put(&b->unjoined_exits, pid, 1);
    return (pid_t)parent;
}

bool pt_eventbook_joins_exited(struct pt_eventbook *b, pid_t pid)
{
    return pt_pidmap_remove(&b->unjoined_exits, pid);
}

bool pt_eventbook_joins_forked(struct pt_eventbook *b, pid_t pid)
{
    return pt_pidmap_remove(&b->parent_of_forked, pid);
}

void pt_eventbook_member_moved(struct pt_eventbook *b, pid_t pid, bool forks_ours)
{
    if (b->follows)
        pt_pidmap_put(&b->forks_ours_lately, pid, forks_ours);
}

void pt_eventbook_unjoined_exits_settled(struct pt_eventbook *b)
{
    pt_pidmap_clear(&b->unjoined_exits);
}

void pt_eventbook_free(struct pt_eventbook *b)
{
    pt_pidmap_free(&b->parent_of_forked);
    pt_pidmap_free(&b->forks_ours_lately);
    pt_pidmap_free(&b->unjoined_exits);
}

const char *pt_eventbook_check_pid(const struct pt_eventbook *b, pid_t pid)
{
    if (pt_pidmap_get(&b->parent_of_forked, pid) >= 0 && pt_pidmap_get(&b->unjoined_exits, pid) >= 0)
        return "a pid both awaits its exit and has exited unjoined";
    return NULL;
}
