#include "fdbudget.h"

#include <sys/resource.h>

bool pt_fd_budget_take(struct pt_fd_budget *b, bool hot)
{
    if (b->kept >= b->limit || (!hot && b->kept_cold >= b->limit / 4 * 3)) {
        b->reached = true;
        return false;
    }
    b->kept++;
    b->kept_cold += !hot;
    return true;
}

void pt_fd_budget_give(struct pt_fd_budget *b, bool hot)
{
    if (b->kept > 0)
        b->kept--;
    if (!hot && b->kept_cold > 0)
        b->kept_cold--;
}

size_t pt_fd_budget_from_rlimit(double share, size_t reserve)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    double soft =
        rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > PT_FD_BUDGET_MAX ? (double)PT_FD_BUDGET_MAX : (double)rl.rlim_cur;
    double budget = soft * share - (double)reserve;
    return budget > 0 ? (size_t)budget : 0;
}
