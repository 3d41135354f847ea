/* fdbudget, the library's part: the budget and its ranks, as
 * proctree/fdbudget.h tells them. */
#ifndef PROCTREE_UTIL_FDBUDGET_H
#define PROCTREE_UTIL_FDBUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/fdbudget.h"

enum pt_fd_rank {
    PT_FD_STATM, /* a member's statm: one a member, reserved */
    PT_FD_POLL,  /* another file read at every poll (a cgroup's), ranked with statm, not reserved */
    PT_FD_STAT,  /* a member's stat: one a member, reserved after the statms */
    PT_FD_OTHER, /* the rest */
    PT_FD_RANKS
};

struct pt_fd_budget {
    size_t limit;                /* descriptors that may be kept */
    size_t kept;                 /* descriptors kept now */
    size_t by_rank[PT_FD_RANKS]; /* of which of each rank */
    size_t members;              /* members known: each reserves a statm and a stat */
    bool reached;                /* a file had to be read without keeping it */
};

/* May one more descriptor of this rank be kept? Counts it when it may. */
bool pt_fdbudget_take_rank(struct pt_fd_budget *b, enum pt_fd_rank rank);
/* A kept descriptor of this rank was closed. */
void pt_fdbudget_give_rank(struct pt_fd_budget *b, enum pt_fd_rank rank);
/* Should a kept descriptor of this rank be given back, so that one of a
 * higher rank can be kept? */
bool pt_fdbudget_over(const struct pt_fd_budget *b, enum pt_fd_rank rank);

/* A member opened (its seats reserved) and closed. */
void pt_fdbudget_join(struct pt_fd_budget *b);
void pt_fdbudget_leave(struct pt_fd_budget *b);

/* The same for a file that is read at every poll (hot: PT_FD_POLL) or
 * not (PT_FD_OTHER). */
bool pt_fdbudget_take(struct pt_fd_budget *b, bool hot);
void pt_fdbudget_give(struct pt_fd_budget *b, bool hot);

#endif
