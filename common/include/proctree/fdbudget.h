/* fdbudget: how many /proc descriptors proctree may keep open, and for
 * which files.
 *
 * A kept /proc file is sampled again with one pread (procfile.h), which is
 * why members keep theirs. But every kept descriptor counts against the
 * RLIMIT_NOFILE of the host agent, and collectd shares that limit with
 * all its other plugins: a tree of a few hundred processes would take the
 * whole of it. So the collector keeps at most `limit` descriptors; a file
 * that does not fit is opened, read and closed at each read instead
 * (memberfiles.c), which costs two more syscalls and a check of the member's
 * identity, and gives the same numbers.
 *
 * When a tree outgrows the budget, the descriptors go where they save the
 * most, by rank (enum pt_fd_rank):
 *   1. each member's statm, read at every poll (10 a second by default),
 *      and a cgroup's file read at every poll (memory.current);
 *   2. each member's stat, read once an interval and by the identity check
 *      that follows a read by path when the member's statm is not kept;
 *   3. everything else, read once an interval or less, and never more
 *      than three quarters of the budget (a cgroup target's files
 *      reserve no seats: its memory.current keeps the last quarter).
 * A file of rank 2 or 3 is kept only while what is left of the budget
 * still holds a descriptor for the statm (and, for rank 3, the stat) of
 * every member that lacks one: the members known (pt_fdbudget_join)
 * reserve their seats. A tree that grows after its files were kept takes
 * them back: a kept descriptor whose rank is over (pt_fdbudget_over) is
 * given back at its next read, which is then its last (memberfiles.c,
 * threads.c), so the next poll keeps the statm in its place.
 *
 * This is the frontends' part (the budget's size); util/fdbudget.h, which
 * includes it, the library's rest (the budget itself). */
#ifndef PROCTREE_FDBUDGET_H
#define PROCTREE_FDBUDGET_H

#include <stddef.h>

/* The largest budget: more descriptors than Linux lets a process open. */
#define PT_FD_BUDGET_MAX ((size_t)1 << 24)

/* share (0 < share <= 1) of this process's soft RLIMIT_NOFILE, less
 * reserve descriptors, and never below 0. */
size_t pt_fdbudget_from_rlimit(double share, size_t reserve);

#endif
