/* taskindex: one pass's records of the task iterator (taskrec.h), all of
 * one mode, indexed for the lookups its reader answers (taskiter.h). No
 * I/O: the records are the caller's bytes, which must stand unchanged
 * while the index is used.
 *
 * Invariants: bytes[0, count * record size) are the records, in the
 * iterator's order.
 *   - FULL: by_tid maps each task record's tid to its index, group_of
 *     each group record's tgid to its; first_of_group[tgid] is the
 *     group's first task record and next[i] chains the rest (-1 ends it),
 *     in tid order;
 *   - STATM: group_of maps each record's tgid to its index;
 *   - CHILDREN: group_of each member there, first_of_group[parent] and
 *     next[] chain the children of each, in pid order.
 * Ownership: the struct owns its arrays (not the records);
 * pt_taskindex_free gives them back. A zeroed struct is an empty one. */
#ifndef PROCTREE_TASKINDEX_H
#define PROCTREE_TASKINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/taskrec.h"
#include "util/pidmap.h"

struct pt_taskindex {
    const char *bytes;
    size_t count;
    enum pt_taskrec_mode mode;
    int32_t *next;
    size_t next_cap;
    struct pt_pidmap by_tid, first_of_group, group_of;
};

/* The size of one record of a pass of mode. */
size_t pt_taskindex_record_size(enum pt_taskrec_mode mode);

/* Index count records of mode at bytes (what it indexed before is
 * forgotten). */
void pt_taskindex_build(struct pt_taskindex *x, enum pt_taskrec_mode mode, const char *bytes, size_t count);
/* No records: every lookup finds none. */
void pt_taskindex_clear(struct pt_taskindex *x);

/* FULL: the record of task tid, the group record of thread group tgid,
 * the group's tasks (the first, then each next one); NULL when none. */
const struct pt_taskrec *pt_taskindex_task(const struct pt_taskindex *x, pid_t tid);
const struct pt_taskrec *pt_taskindex_group(const struct pt_taskindex *x, pid_t tgid);
const struct pt_taskrec *pt_taskindex_group_first(const struct pt_taskindex *x, pid_t tgid);
const struct pt_taskrec *pt_taskindex_group_next(const struct pt_taskindex *x, const struct pt_taskrec *r);
/* STATM: the record of thread group tgid; NULL when none. */
const struct pt_taskrec_statm *pt_taskindex_statm(const struct pt_taskindex *x, pid_t tgid);
/* CHILDREN: is member tgid there; its children (cursor is the caller's),
 * 0 ends. */
bool pt_taskindex_alive(const struct pt_taskindex *x, pid_t tgid);
pid_t pt_taskindex_child_first(const struct pt_taskindex *x, pid_t tgid, long *cursor);
pid_t pt_taskindex_child_next(const struct pt_taskindex *x, long *cursor);

void pt_taskindex_free(struct pt_taskindex *x);

#endif
