/* fdbudget: how many /proc descriptors proctree may keep open.
 *
 * A kept /proc file is sampled again with one pread (procfile.h), which is
 * why members keep theirs. But every kept descriptor counts against the
 * RLIMIT_NOFILE of the host agent, and collectd shares that limit with
 * all its other plugins: a tree of a few hundred processes would take the
 * whole of it. So the collector keeps at most `limit` descriptors; a file
 * that does not fit is opened, read and closed at each read instead
 * (member.c), which costs two more syscalls and gives the same numbers.
 *
 * The other files (read once an interval: six of a member's eight) may
 * take at most three quarters of the budget, so the hot ones (stat and
 * statm, read at every 100 ms poll) always have the last quarter: when a
 * tree outgrows the budget, the descriptors go where they save the most. */
#ifndef PROCTREE_FDBUDGET_H
#define PROCTREE_FDBUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct pt_fd_budget {
    size_t limit;     /* descriptors that may be kept */
    size_t kept;      /* descriptors kept now */
    size_t kept_cold; /* of which not hot */
    bool reached;     /* a file had to be read without keeping it */
};

/* May one more descriptor be kept? Counts it when it may. */
bool pt_fd_budget_take(struct pt_fd_budget *b, bool hot);
/* A kept descriptor (hot or not, as when it was taken) was closed. */
void pt_fd_budget_give(struct pt_fd_budget *b, bool hot);

/* The largest budget: more descriptors than Linux lets a process open. */
#define PT_FD_BUDGET_MAX ((size_t)1 << 24)

/* share (0 < share <= 1) of this process's soft RLIMIT_NOFILE, less
 * reserve descriptors, and never below 0. */
size_t pt_fd_budget_from_rlimit(double share, size_t reserve);

#endif
