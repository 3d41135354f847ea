#include "bpf/taskindex.h"

#include <stdlib.h>
#include <string.h>

#include "util/base.h"

size_t pt_taskindex_record_size(enum pt_taskrec_mode mode)
{
    switch (mode) {
    case PT_TR_MODE_STATM:
        return sizeof(struct pt_taskrec_statm);
    case PT_TR_MODE_CHILDREN:
        return sizeof(struct pt_taskrec_child);
    case PT_TR_MODE_FULL:
        break;
    }
    return sizeof(struct pt_taskrec);
}

static const struct pt_taskrec *full_record(const struct pt_taskindex *x, size_t i)
{
    return (const struct pt_taskrec *)(const void *)(x->bytes + i * sizeof(struct pt_taskrec));
}

static const struct pt_taskrec_child *child_record(const struct pt_taskindex *x, size_t i)
{
    return (const struct pt_taskrec_child *)(const void *)(x->bytes + i * sizeof(struct pt_taskrec_child));
}

static const struct pt_taskrec_statm *statm_record(const struct pt_taskindex *x, size_t i)
{
    return (const struct pt_taskrec_statm *)(const void *)(x->bytes + i * sizeof(struct pt_taskrec_statm));
}

static void next_room(struct pt_taskindex *x)
{
    if (x->next_cap < x->count) {
        x->next_cap = x->count;
        x->next = pt_xrealloc_array(x->next, x->next_cap, sizeof(*x->next));
    }
}

static void index_full(struct pt_taskindex *x)
{
    next_room(x);
    /* chained backwards, so that each group's list ends up in tid order */
    for (size_t i = x->count; i-- > 0;) {
        const struct pt_taskrec *r = full_record(x, i);
        x->next[i] = -1;
        if (r->kind == PT_TR_GROUP) {
            pt_pidmap_put(&x->group_of, (pid_t)r->tgid, (uint32_t)i);
            continue;
        }
        if (r->kind != PT_TR_TASK)
            continue;
        pt_pidmap_put(&x->by_tid, (pid_t)r->pid, (uint32_t)i);
        long first = pt_pidmap_get(&x->first_of_group, (pid_t)r->tgid);
        x->next[i] = (int32_t)first;
        pt_pidmap_put(&x->first_of_group, (pid_t)r->tgid, (uint32_t)i);
    }
}

/* A discovery's records: the members there, and each member's children
 * chained from first_of_group[member] through next[], in pid order. */
static void index_children(struct pt_taskindex *x)
{
    next_room(x);
    for (size_t i = x->count; i-- > 0;) {
        const struct pt_taskrec_child *r = child_record(x, i);
        x->next[i] = -1;
        if (r->kind == PT_TR_ALIVE) {
            pt_pidmap_put(&x->group_of, (pid_t)r->pid, (uint32_t)i);
        } else if (r->kind == PT_TR_CHILD) {
            x->next[i] = (int32_t)pt_pidmap_get(&x->first_of_group, (pid_t)r->parent);
            pt_pidmap_put(&x->first_of_group, (pid_t)r->parent, (uint32_t)i);
        }
    }
}

void pt_taskindex_clear(struct pt_taskindex *x)
{
    x->count = 0;
    pt_pidmap_clear(&x->by_tid);
    pt_pidmap_clear(&x->first_of_group);
    pt_pidmap_clear(&x->group_of);
}

void pt_taskindex_build(struct pt_taskindex *x, enum pt_taskrec_mode mode, const char *bytes, size_t count)
{
    pt_taskindex_clear(x);
    x->mode = mode;
    x->bytes = bytes;
    x->count = count;
    if (mode == PT_TR_MODE_FULL)
        index_full(x);
    else if (mode == PT_TR_MODE_CHILDREN)
        index_children(x);
    else
        for (size_t i = 0; i < count; i++)
            pt_pidmap_put(&x->group_of, (pid_t)statm_record(x, i)->tgid, (uint32_t)i);
}

/* The index's lookups answer only for the records of their mode. */
static long lookup(const struct pt_taskindex *x, enum pt_taskrec_mode mode, const struct pt_pidmap *map, pid_t pid)
{
    return x->count > 0 && x->mode == mode ? pt_pidmap_get(map, pid) : -1;
}

const struct pt_taskrec *pt_taskindex_task(const struct pt_taskindex *x, pid_t tid)
{
    long i = lookup(x, PT_TR_MODE_FULL, &x->by_tid, tid);
    return i < 0 ? NULL : full_record(x, (size_t)i);
}

const struct pt_taskrec *pt_taskindex_group(const struct pt_taskindex *x, pid_t tgid)
{
    long i = lookup(x, PT_TR_MODE_FULL, &x->group_of, tgid);
    return i < 0 ? NULL : full_record(x, (size_t)i);
}

const struct pt_taskrec *pt_taskindex_group_first(const struct pt_taskindex *x, pid_t tgid)
{
    long i = lookup(x, PT_TR_MODE_FULL, &x->first_of_group, tgid);
    return i < 0 ? NULL : full_record(x, (size_t)i);
}

const struct pt_taskrec *pt_taskindex_group_next(const struct pt_taskindex *x, const struct pt_taskrec *r)
{
    size_t i = (size_t)((const char *)r - x->bytes) / sizeof(*r);
    int32_t n = x->next[i];
    return n < 0 ? NULL : full_record(x, (size_t)n);
}

const struct pt_taskrec_statm *pt_taskindex_statm(const struct pt_taskindex *x, pid_t tgid)
{
    long i = lookup(x, PT_TR_MODE_STATM, &x->group_of, tgid);
    return i < 0 ? NULL : statm_record(x, (size_t)i);
}

bool pt_taskindex_alive(const struct pt_taskindex *x, pid_t tgid)
{
    return lookup(x, PT_TR_MODE_CHILDREN, &x->group_of, tgid) >= 0;
}

pid_t pt_taskindex_child_first(const struct pt_taskindex *x, pid_t tgid, long *cursor)
{
    *cursor = lookup(x, PT_TR_MODE_CHILDREN, &x->first_of_group, tgid);
    return *cursor < 0 ? 0 : (pid_t)child_record(x, (size_t)*cursor)->pid;
}

pid_t pt_taskindex_child_next(const struct pt_taskindex *x, long *cursor)
{
    *cursor = *cursor < 0 ? -1 : x->next[*cursor];
    return *cursor < 0 ? 0 : (pid_t)child_record(x, (size_t)*cursor)->pid;
}

void pt_taskindex_free(struct pt_taskindex *x)
{
    free(x->next);
    pt_pidmap_free(&x->by_tid);
    pt_pidmap_free(&x->first_of_group);
    pt_pidmap_free(&x->group_of);
    memset(x, 0, sizeof(*x));
}
