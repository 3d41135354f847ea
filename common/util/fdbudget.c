#include "util/fdbudget.h"

#include <sys/resource.h>

/* Seats of the ranks above rank that members still lack. */
static size_t reserved_above(const struct pt_fd_budget *b, enum pt_fd_rank rank)
{
    size_t want = 0;
    if (rank > PT_FD_POLL && b->members > b->by_rank[PT_FD_STATM])
        want += b->members - b->by_rank[PT_FD_STATM];
    if (rank > PT_FD_STAT && b->members > b->by_rank[PT_FD_STAT])
        want += b->members - b->by_rank[PT_FD_STAT];
    return want;
}

bool pt_fdbudget_take_rank(struct pt_fd_budget *b, enum pt_fd_rank rank)
{
    size_t want = reserved_above(b, rank);
    bool capped = rank == PT_FD_OTHER && b->by_rank[PT_FD_OTHER] >= b->limit / 4 * 3;
    if (b->kept >= b->limit || want >= b->limit - b->kept || capped) {
        b->reached = true;
        return false;
    }
    b->kept++;
    b->by_rank[rank]++;
    return true;
}

void pt_fdbudget_give_rank(struct pt_fd_budget *b, enum pt_fd_rank rank)
{
    if (b->kept > 0)
        b->kept--;
    if (b->by_rank[rank] > 0)
        b->by_rank[rank]--;
}

bool pt_fdbudget_over(const struct pt_fd_budget *b, enum pt_fd_rank rank)
{
    return b->kept > b->limit || reserved_above(b, rank) > b->limit - b->kept;
}

void pt_fdbudget_join(struct pt_fd_budget *b)
{
    b->members++;
}

void pt_fdbudget_leave(struct pt_fd_budget *b)
{
    if (b->members > 0)
        b->members--;
}

bool pt_fdbudget_take(struct pt_fd_budget *b, bool hot)
{
    return pt_fdbudget_take_rank(b, hot ? PT_FD_POLL : PT_FD_OTHER);
}

void pt_fdbudget_give(struct pt_fd_budget *b, bool hot)
{
    pt_fdbudget_give_rank(b, hot ? PT_FD_POLL : PT_FD_OTHER);
}

size_t pt_fdbudget_from_rlimit(double share, size_t reserve)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    double soft =
        rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > PT_FD_BUDGET_MAX ? (double)PT_FD_BUDGET_MAX : (double)rl.rlim_cur;
    double budget = soft * share - (double)reserve;
    return budget > 0 ? (size_t)budget : 0;
}
