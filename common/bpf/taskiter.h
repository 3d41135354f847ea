/* taskiter: the BPF task iterator's loader and reader.
 *
 * One program per process (the collector's), shared by its targets: a
 * member is followed (its tgid put in the program's map and list, counted
 * per target that follows it) while a target holds it, and a snapshot is
 * one pass of the iterator over the host's tasks, taken in one read(2)
 * loop (a poll's, where the kernel allows, one visit that looks each
 * listed member up by its pid instead, a chunk of the list a read):
 * at a poll (PT_TR_MODE_STATM) each member's memory, at the interval's
 * end (PT_TR_MODE_FULL) every task of each member and each group, at a
 * discovery (PT_TR_MODE_CHILDREN) each member's children (taskrec.h),
 * indexed by tid and by thread group; a FULL pass's TCP sockets of each
 * group are taken out of its records into a struct pt_tasksockets.
 *
 * Invariants:
 *   - records[0, count) are the last snapshot's, all of its mode, in the
 *     iterator's order, indexed (taskindex.h); valid while no pass was
 *     forgotten since;
 *   - followed counts each tgid's followers; a tgid's bit is set in the
 *     program's map (and in words, its copy) exactly while its count is
 *     positive;
 *   - list[0, listed) holds each followed tgid once while the room lasts
 *     (the first PT_TASKREC_LIST_MAX), slot[tgid] its index.
 * Ownership: the struct owns its program, link and arrays;
 * pt_taskiter_close gives them back.
 *
 * Loading needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) effective, and
 * a kernel with the task iterator and the numeric iterator (Linux 6.4 or
 * later). The iterator's reads need none. Built without libbpf
 * (-Dbpf=disabled, or its tools missing), pt_taskiter_open always fails
 * and says so. */
#ifndef PROCTREE_TASKITER_H
#define PROCTREE_TASKITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/taskrec.h"

struct pt_taskiter;
struct pt_tasksockets;

/* Was this build made with the BPF source? */
bool pt_taskiter_built(void);

/* Load and attach the program. btf_fd: a descriptor of the BTF the
 * program's fields are to be found in, or -1 for the running kernel's
 * (the caller opens a chosen file itself, with its own permissions).
 * NULL on failure, why (a phrase: "the kernel refused to load it:
 * Operation not permitted") in why. */
struct pt_taskiter *pt_taskiter_open(int btf_fd, char *why, size_t whylen);
void pt_taskiter_close(struct pt_taskiter *it);

/* Follow tgid (once more) / once less. Follow fails (-errno) when the
 * map cannot take it: that member is then read from procfs. */
int pt_taskiter_follow(struct pt_taskiter *it, pid_t tgid);
void pt_taskiter_unfollow(struct pt_taskiter *it, pid_t tgid);
bool pt_taskiter_follows(const struct pt_taskiter *it, pid_t tgid);
/* The members map's descriptor, for another program of this process to
 * count by the same members (udpcount.h); -1 where none was loaded. */
int pt_taskiter_members_fd(const struct pt_taskiter *it);
/* Whether a poll by the list counts followed tgid's descriptors
 * (taskrec.h's PT_TASKREC_LIST_FDS): a few loads of its table at each
 * poll, asked for where they spare a stat of its fd/. Nothing for a tgid
 * not listed. */
void pt_taskiter_count_fds(struct pt_taskiter *it, pid_t tgid, bool on);

/* Does statm on this kernel sum what the records sum (taskfold.h)? Else
 * statm is read from procfs. */
bool pt_taskiter_statm_sums(const struct pt_taskiter *it);

/* Whether a FULL pass lists each group's TCP sockets (by default it
 * does): their reads are most of a pass's cost in a tree of many
 * sockets, and only a target that follows them takes them. Not listed,
 * each group's are cut (pt_tasksockets_of). */
void pt_taskiter_list_sockets(struct pt_taskiter *it, bool on);

/* One pass of the iterator, of mode (enum pt_taskrec_mode). 0, or -errno
 * (the snapshot is then empty). */
int pt_taskiter_snapshot(struct pt_taskiter *it, enum pt_taskrec_mode mode);
/* The same, a FULL pass listing the groups' sockets only where sockets
 * (an interval end's; a poll's or a PSS sample's takes none): not listed,
 * each group's are cut. */
int pt_taskiter_snapshot_sockets(struct pt_taskiter *it, enum pt_taskrec_mode mode, bool sockets);
/* How many of the host's tasks the last walk visited (a FULL or CHILDREN
 * pass, a STATM one without the list): a walk costs that many visits,
 * whatever the members (0 before the first). */
uint64_t pt_taskiter_visits(const struct pt_taskiter *it);
/* Does a STATM pass look the members up by their pids (pt_statm, on a
 * kernel with bpf_task_from_pid), at a cost that follows the members, not
 * the host's tasks? */
bool pt_taskiter_polls_by_list(const struct pt_taskiter *it);
/* Does a snapshot of mode stand (taken, not forgotten since)? A pass of
 * reads takes one at its start and forgets it at its end, so that no
 * later read takes an old one for the present. */
bool pt_taskiter_valid(const struct pt_taskiter *it, enum pt_taskrec_mode mode);
void pt_taskiter_forget(struct pt_taskiter *it);

/* FULL: the record of task tid; NULL when it had none. */
const struct pt_taskrec *pt_taskiter_task(const struct pt_taskiter *it, pid_t tid);
/* FULL: the group record of thread group tgid (kind PT_TR_GROUP); NULL
 * when it had none (the process was reaped, or is not followed). */
const struct pt_taskrec *pt_taskiter_group(const struct pt_taskiter *it, pid_t tgid);
/* The TCP sockets of each group (tasksockets.h) of the last pass, when it
 * was a FULL one that succeeded, forgotten since or not (the interval's
 * end reads its members' sockets after its reads); NULL else. */
const struct pt_tasksockets *pt_taskiter_sockets(const struct pt_taskiter *it);
/* FULL: the tasks of thread group tgid: the first, then each next one;
 * NULL ends. */
const struct pt_taskrec *pt_taskiter_group_first(const struct pt_taskiter *it, pid_t tgid);
const struct pt_taskrec *pt_taskiter_group_next(const struct pt_taskiter *it, const struct pt_taskrec *r);
/* CHILDREN: is member tgid there (its leader was visited)? */
bool pt_taskiter_alive(const struct pt_taskiter *it, pid_t tgid);
/* CHILDREN: the processes whose real parent is a thread of member tgid,
 * as its task/TID/children files list them: the first, then each next
 * one (cursor is the caller's); 0 ends. */
pid_t pt_taskiter_child_first(const struct pt_taskiter *it, pid_t tgid, long *cursor);
pid_t pt_taskiter_child_next(const struct pt_taskiter *it, long *cursor);
/* STATM: the record of thread group tgid; NULL when it had none. */
const struct pt_taskrec_statm *pt_taskiter_statm(const struct pt_taskiter *it, pid_t tgid);

#endif
