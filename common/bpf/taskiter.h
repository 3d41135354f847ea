/* taskiter: the BPF task iterator's loader and reader.
 *
 * One program per process (the collector's), shared by its targets: a
 * member is followed (its tgid put in the program's map, counted per
 * target that follows it) while a target holds it, and a snapshot is one
 * pass of the iterator: one record per task of every followed thread
 * group, taken in one read(2) loop, indexed by tid and by thread group.
 *
 * Invariants:
 *   - records[0, count) are the last snapshot's, in the iterator's order;
 *   - by_tid maps each record's tid to its index; for a leader's tgid,
 *     first_of_group[tgid] is its first task's index and next[i] chains
 *     the rest of its group (-1 ends it);
 *   - followed counts each tgid's followers; a tgid is in the program's
 *     map exactly while its count is positive.
 * Ownership: the struct owns its program, links and arrays;
 * pt_taskiter_close gives them back.
 *
 * Loading needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) effective: the
 * caller raises and lowers them around pt_taskiter_open. The iterator's
 * reads need none. Built without libbpf (-Dbpf=disabled, or its tools
 * missing), pt_taskiter_open always fails and says so. */
#ifndef PROCTREE_TASKITER_H
#define PROCTREE_TASKITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/taskrec.h"

struct pt_taskiter;

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
 * map is full: that member is then read from procfs. */
int pt_taskiter_follow(struct pt_taskiter *it, pid_t tgid);
void pt_taskiter_unfollow(struct pt_taskiter *it, pid_t tgid);
bool pt_taskiter_follows(const struct pt_taskiter *it, pid_t tgid);

/* One pass of the iterator. 0, or -errno (the snapshot is then empty). */
int pt_taskiter_snapshot(struct pt_taskiter *it);
/* Does a snapshot stand (taken, not forgotten since)? A pass of reads
 * takes one at its start and forgets it at its end, so that no later read
 * takes an old one for the present. */
bool pt_taskiter_valid(const struct pt_taskiter *it);
void pt_taskiter_forget(struct pt_taskiter *it);
/* How many snapshots were taken: a caller's own count tells whether a
 * snapshot is newer than what it read. */
uint64_t pt_taskiter_generation(const struct pt_taskiter *it);

/* The snapshot's record of task tid; NULL when it had none. */
const struct pt_taskrec *pt_taskiter_task(const struct pt_taskiter *it, pid_t tid);
/* The tasks of thread group tgid in the snapshot: the first, then each
 * next one; NULL ends. */
const struct pt_taskrec *pt_taskiter_group_first(const struct pt_taskiter *it, pid_t tgid);
const struct pt_taskrec *pt_taskiter_group_next(const struct pt_taskiter *it, const struct pt_taskrec *r);

#endif
